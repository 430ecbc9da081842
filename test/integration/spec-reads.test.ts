import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MINUTE, tierTokens, uploaderKey } from '../support/market-books';

/**
 * Market reads checked against the words of api.md (Resources, Market reads, Freshness, Chart windows and
 * depth, Market rules), black box over HTTP. Books are posted with hand-made entries (bands, bid-only
 * entries, huge stacks, suffix and pet keys) so the derived scan, candle, volume and book rules show in the
 * answers. Each scenario has its own market (markets never interact).
 */
const D0 = Math.floor(DEFAULT_START / DAY) * DAY;
const day0 = D0 / DAY;
const t = (h: number, m = 0) => D0 + h * HOUR + m * MINUTE;
const KEY_BASE = 2147483648;
const MAX31 = 2147483647;

/** Scenario A: derived scans, candles, volume, books, ordering of keys. */
const MA = 'forever.pvp.alliance.us';
/** Scenario B: the hourly view at the cut. */
const MB = 'forever.rp.alliance.us';
/** Scenario C: market summary counts. */
const MC = 'forever.normal.horde.us';
const A1 = 25;
const A2 = 100;
const A3 = 25 + KEY_BASE * 2; // suffix id 1
const A4 = 25 + KEY_BASE * (65536 + 1); // caged pet of species 1
const B1 = 7001;

const T1 = t(1);
const T2 = t(7); // exactly 6 hours after T1: volume
const T3 = t(13) + 1; // 6 hours and 1 ms after T2: no volume
const T4 = t(10); // late, incomplete
const T5 = t(12); // late, complete

type Entry = [key: number, price: number, stack: number, band: number, n: number];

describe('market reads against the spec', () => {
  let local: Local;
  let tiers: Awaited<ReturnType<typeof tierTokens>>;
  let depthOnly: string;
  let ip = 0;
  const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
    local.api('GET', path, { token, headers: token ? headers : { 'x-forwarded-for': `10.7.${Math.floor(++ip / 250) % 250}.${ip % 250}`, ...headers } });

  async function post(market: string, at: number, entries: Entry[], complete = true): Promise<void> {
    const key = await uploaderKey(local);
    if ((await local.now()) < at) await local.setClock(at);
    const sorted = [...entries].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
    const body = { market, at, complete, auctions: sorted.reduce((s, e) => s + e[4], 0), entries: sorted };
    const res = await local.api('POST', '/api/v1/ah/books', { token: key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await local.settle();
  }

  beforeAll(async () => {
    local = await startLocal();
    tiers = await tierTokens(local);
    // Contributor window open, prices.live withheld: hourly answers with depth and 90 days.
    const u = await local.user({ plan: 'free', contributorUntil: D0 + 60 * DAY, withhold: ['prices.live'] });
    depthOnly = await local.session(u.id, { expiresIn: 30 * 86_400 });

    await post(MC, t(0, 30), [[9001, 10, 1, 3, 1]]);
    await post(MA, T1, [
      [A1, 500, 10, 1, 2],
      [A1, 0, 5, 3, 1],
      [A2, 0, 3, 2, 1],
      [A3, 700, MAX31, 3, 2],
      [A4, 900, 1, 4, 1],
    ]);
    await post(MA, T2, [
      [A1, 450, 10, 1, 1],
      [A2, 800, 1, 3, 1],
      [A4, 900, 1, 4, 1],
    ]);
    await post(MA, T3, [
      [A1, 400, 10, 3, 1],
      [A2, 800, 1, 3, 1],
      [A4, 900, 1, 4, 1],
    ]);
    await post(MA, T4, [[A1, 300, 1, 3, 1]], false);
    await post(MA, T5, [[A4, 950, 1, 4, 1]], true);
    await local.setClock(t(14, 30));
  });
  afterAll(() => local.close());

  describe('day 0, 14:30 (cut 14:00)', () => {
    it('derives rows from books: lowest buyout, quantity of every entry capped at 2^31-1, bid-only items get no row', async () => {
      const res = await get(`/api/v1/ah/${MA}`, tiers.premium);
      expect(res.status).toBe(200);
      // A late book (T4, T5) never replaces a newer row; keys ascending (suffix and pet keys last).
      expect(res.body.rows).toEqual([
        [A1, 400, 10, T3],
        [A2, 800, 1, T3],
        [A3, null, 0, T3],
        [A4, 900, 1, T3],
      ]);
      const first = await get(`/api/v1/ah/${MA}?since=0&x=1`, tiers.premium);
      expect(first.body.seq).toBe(5);
    });

    it('answers the single item with AuctionRow, day points and volume estimates', async () => {
      const a1 = await get(`/api/v1/ah/${MA}/${A1}`, tiers.premium);
      expect(a1.body).toEqual({
        market: MA,
        item: A1,
        row: [A1, 400, 10, T3],
        // low over the day's scans (the late 300), last/quantity of the newest scan.
        days: [[day0, 300, 400, 10]],
        // T1→T2 (exactly 6 h): 2 short auctions of 10 gone → expired 20; the bid-only 5 gone → sold 5; 10 listed.
        // T2→T3 (6 h + 1 ms): nothing added.
        volume: [[day0, 10, 5, 20]],
        now: t(14, 30),
        live: true,
      });
      expect(a1.headers.get('cache-control')).toBe('private, no-store');
      const a3 = await get(`/api/v1/ah/${MA}/${A3}`, tiers.premium);
      expect(a3.body).toMatchObject({ row: [A3, null, 0, T3], days: [[day0, 700, 700, MAX31]], volume: [[day0, 0, 2 * MAX31, 0]] });
      const a2 = await get(`/api/v1/ah/${MA}/${A2}`, tiers.premium);
      expect(a2.body).toMatchObject({ row: [A2, 800, 1, T3], days: [[day0, 800, 800, 1]], volume: [[day0, 1, 3, 0]] });
      // No depth: volume is [].
      const free = await get(`/api/v1/ah/${MA}/${A1}`, tiers.free);
      expect(free.body).toEqual({ market: MA, item: A1, row: [A1, 400, 10, T3], days: [[day0, 300, 400, 10]], volume: [], now: t(14, 30), live: false });
      expect(free.headers.get('cache-control')).toBe(`public, max-age=${30 * 60}`);
      expect(free.headers.get('vary')).toBe('Authorization, Cookie');
    });

    it('keeps open at the earliest reading, close at the newest, low and high over all (candle rules)', async () => {
      const d1 = await get(`/api/v1/ah/${MA}/${A1}/candles`, tiers.premium);
      expect(d1.body).toEqual({
        market: MA,
        item: A1,
        res: 'd1',
        candles: [[D0, 500, 500, 300, 400, 10]],
        volume: [[day0, 10, 5, 20]],
        now: t(14, 30),
        live: true,
      });
      const a4 = await get(`/api/v1/ah/${MA}/${A4}/candles`, tiers.premium);
      expect(a4.body.candles).toEqual([[D0, 900, 950, 900, 900, 1]]);
      const h1 = await get(`/api/v1/ah/${MA}/${A1}/candles?res=h1`, tiers.premium);
      expect(h1.body.candles).toEqual([
        [t(1), 500, 500, 500, 500, 25],
        [t(7), 450, 450, 450, 450, 10],
        [t(10), 300, 300, 300, 300, 1],
        [t(13), 400, 400, 400, 400, 10],
      ]);
      const m1 = await get(`/api/v1/ah/${MA}/${A1}/candles?res=m1&from=${t(10)}`, tiers.premium);
      expect(m1.body).toMatchObject({
        res: 'm1',
        live: true,
        candles: [
          [t(10), 300, 300, 300, 300, 1],
          [t(13), 400, 400, 400, 400, 10],
        ],
      });
      // `from` rounds up to the next candle start.
      expect((await get(`/api/v1/ah/${MA}/${A1}/candles?res=h1&from=${t(10) + 1}`, tiers.premium)).body.candles).toEqual([[t(13), 400, 400, 400, 400, 10]]);
      expect((await get(`/api/v1/ah/${MA}/${A1}/candles?from=${D0 + 1}`, tiers.premium)).body.candles).toEqual([]);
      // Hourly h1 without prices.live: finished hours only, hourly headers.
      const anon = await get(`/api/v1/ah/${MA}/${A1}/candles?res=h1`);
      expect(anon.body).toMatchObject({ res: 'h1', volume: [], live: false });
      expect(anon.headers.get('vary')).toBe('Authorization, Cookie');
      expect(anon.headers.get('cache-control')).toBe(`public, max-age=${30 * 60}`);
    });

    it('answers history and intraday with items ascending and lists oldest first', async () => {
      const h = await get(`/api/v1/ah/${MA}/history?from=${day0}`, tiers.premium);
      expect(h.body).toEqual({
        market: MA,
        from: day0,
        items: [
          [A1, [[day0, 500, 500, 300, 400, 10]], [[day0, 10, 5, 20]]],
          [A2, [[day0, 800, 800, 800, 800, 1]], [[day0, 1, 3, 0]]],
          [A3, [[day0, 700, 700, 700, 700, MAX31]], [[day0, 0, 2 * MAX31, 0]]],
          [A4, [[day0, 900, 950, 900, 900, 1]], [[day0, 0, 0, 0]]],
        ],
        now: t(14, 30),
        live: true,
      });
      const anon = await get(`/api/v1/ah/${MA}/history?from=${day0}`);
      expect(anon.body.items.map((i: unknown[]) => [i[0], i[2]])).toEqual([
        [A1, []],
        [A2, []],
        [A3, []],
        [A4, []],
      ]);
      expect(anon.body.live).toBe(false);
      expect(anon.headers.get('vary')).toBe('Authorization, Cookie');
      const hour0 = D0 / HOUR;
      const i = await get(`/api/v1/ah/${MA}/intraday?from=${hour0}`, tiers.contributor);
      expect(i.body).toEqual({
        market: MA,
        from: hour0,
        items: [
          [
            A1,
            [
              [hour0 + 1, 500, 25],
              [hour0 + 7, 450, 10],
              [hour0 + 10, 300, 1],
              [hour0 + 13, 400, 10],
            ],
          ],
          [
            A2,
            [
              [hour0 + 7, 800, 1],
              [hour0 + 13, 800, 1],
            ],
          ],
          [A3, [[hour0 + 1, 700, MAX31]]],
          [
            A4,
            [
              [hour0 + 1, 900, 1],
              [hour0 + 7, 900, 1],
              [hour0 + 12, 950, 1],
              [hour0 + 13, 900, 1],
            ],
          ],
        ],
        now: t(14, 30),
      });
    });

    it('keeps the current book for a late or incomplete book; item book and books list', async () => {
      const b = await get(`/api/v1/ah/${MA}/${A1}/book`, tiers.contributor);
      expect(b.body).toEqual({ market: MA, item: A1, at: T3, entries: [[400, 10, 3, 1]], now: t(14, 30) });
      const none = await get(`/api/v1/ah/${MA}/4444/book`, tiers.contributor);
      expect(none.body).toEqual({ market: MA, item: 4444, at: T3, entries: [], now: t(14, 30) });
      const list = await get(`/api/v1/ah/${MA}/books`, tiers.contributor);
      expect(list.body.books.map((x: { at: number }) => x.at)).toEqual([T3, T5, T4, T2, T1]);
      expect(list.body.books[2]).toMatchObject({ at: T4, complete: false, auctions: 1, entries: 1 });
      expect(typeof list.body.books[2].url).toBe('string');
      // from and to are inclusive bounds.
      const ranged = await get(`/api/v1/ah/${MA}/books?from=${T2}&to=${T4}`, tiers.contributor);
      expect(ranged.body.books.map((x: { at: number }) => x.at)).toEqual([T4, T2]);
      const m = await get('/api/v1/ah', tiers.contributor);
      // The market's newest scan is the newest `at` in its log, not the last merged (T5 is late).
      expect(m.body.markets.find((x: { market: string }) => x.market === MA)).toMatchObject({ at: T3, items: 4, listed: 3, scans: 5 });
      expect(m.body.markets.find((x: { market: string }) => x.market === MA).book).toMatchObject({ at: T3, complete: true, auctions: 3, entries: 3 });
    });

    it('answers item book with at null before the first complete book', async () => {
      await post(MB, t(14, 35), [[B1, 100, 1, 3, 1]], false);
      const b = await get(`/api/v1/ah/${MB}/${B1}/book`, tiers.contributor);
      expect(b.body).toEqual({ market: MB, item: B1, at: null, entries: [], now: t(14, 35) });
    });

    it('writes the hourly snapshot with rows as of the hour and daily closes, items ascending', async () => {
      const admin = await local.user({ plan: 'free', grants: ['admin'] });
      const token = await local.session(admin.id);
      const w = await local.api('POST', '/api/v1/admin/snapshot', { token, body: {} });
      expect(w.status, JSON.stringify(w.body)).toBe(200);
      const snap = await get(`/api/v1/ah/${MA}/snapshot`);
      expect(snap.status).toBe(200);
      expect(snap.headers.get('cache-control')).toBe(`public, max-age=${25 * 60 + 120}`);
      expect(snap.body).toMatchObject({
        v: 1,
        market: MA,
        at: t(14),
        scan: T3,
        rows: [
          [A1, 400, 10, T3],
          [A2, 800, 1, T3],
          [A3, null, 0, T3],
          [A4, 900, 1, T3],
        ],
        days: [
          [A1, [[day0, 400, 10]]],
          [A2, [[day0, 800, 1]]],
          [A3, [[day0, 700, MAX31]]],
          [A4, [[day0, 900, 1]]],
        ],
      });
      expect(Object.keys(snap.body).sort()).toEqual(['at', 'days', 'market', 'now', 'rows', 'scan', 'v']);
      // A market without data has no snapshot; an unknown market is 400.
      expect((await get('/api/v1/ah/forever.pvp.horde.us/snapshot')).status).toBe(404);
      expect((await get('/api/v1/ah/forever.pvp.moon.us/snapshot')).body).toMatchObject({ error: 'bad_market' });
    });
  });

  describe('hourly view at the cut', () => {
    it('leaves out a reading made exactly at the cut', async () => {
      await post(MB, t(15, 10), [[B1, 100, 1, 3, 1]]);
      await post(MB, t(16), [[B1, 90, 2, 3, 1]]);
      await local.setClock(t(16, 20));
      const anon = await get(`/api/v1/ah/${MB}/${B1}`);
      expect(anon.body).toEqual({ market: MB, item: B1, row: [B1, 100, 1, t(15, 10)], days: [[day0, 100, 100, 1]], volume: [], now: t(16, 20), live: false });
      expect((await get(`/api/v1/ah/${MB}/${B1}/candles?res=h1`)).body.candles).toEqual([
        [t(14), 100, 100, 100, 100, 1],
        [t(15), 100, 100, 100, 100, 1],
      ]);
      expect((await get(`/api/v1/ah/${MB}/${B1}/candles`)).body.candles).toEqual([[D0, 100, 100, 100, 100, 1]]);
      const history = await get(`/api/v1/ah/${MB}/history`);
      expect(history.body.items).toEqual([[B1, [[day0, 100, 100, 100, 100, 1]], []]]);
      const live = await get(`/api/v1/ah/${MB}/${B1}`, tiers.premium);
      expect(live.body).toMatchObject({ row: [B1, 90, 2, t(16)], days: [[day0, 90, 90, 2]], live: true });
      const markets = await get('/api/v1/ah');
      expect(markets.body.markets.find((x: { market: string }) => x.market === MB)).toEqual({
        market: MB,
        at: t(15, 10),
        items: 1,
        listed: 1,
        scans: 2,
        contributors7d: 2,
      });
    });

    it("reuses the hour's first answer per path, query and caller restriction", async () => {
      const anon1 = await get(`/api/v1/ah/${MB}/${B1}?q=r`);
      await post(MB, t(16, 30), [[B1, 80, 3, 3, 1]]);
      await local.setClock(t(16, 40));
      const anon2 = await get(`/api/v1/ah/${MB}/${B1}?q=r`, tiers.free);
      expect(anon2.body).toEqual(anon1.body);
      expect(anon2.headers.get('cache-control')).toBe(`public, max-age=${20 * 60}`);
      // Another tier (90 days, depth) is another answer, as of the same cut.
      const deep = await get(`/api/v1/ah/${MB}/${B1}?q=r`, depthOnly);
      expect(deep.body).toMatchObject({ row: [B1, 100, 1, t(15, 10)], now: t(16, 40), live: false });
      expect(deep.headers.get('vary')).toBe('Authorization, Cookie');
      // Intraday (live) reaches the current hour.
      const hour = Math.floor(t(16) / HOUR);
      const intraday = await get(`/api/v1/ah/${MB}/intraday?from=${hour - 1}`, tiers.contributor);
      expect(intraday.body.items).toEqual([
        [
          B1,
          [
            [hour - 1, 100, 1],
            [hour, 80, 3],
          ],
        ],
      ]);
    });
  });

  describe('market summary', () => {
    it('counts scans of the preceding 24 hours, live and as of the cut', async () => {
      // MC's only scan was read at 00:30 of day 0; 23 h 58 min later it is still within the preceding 24 h.
      await local.setClock(t(24, 28));
      const find = (body: { markets: Array<{ market: string }> }) => body.markets.find((x) => x.market === MC);
      const live = await get('/api/v1/ah', tiers.contributor);
      expect(find(live.body)).toMatchObject({ at: t(0, 30), scans: 1, contributors7d: 1 });
      const anon = await get('/api/v1/ah');
      expect(find(anon.body)).toMatchObject({ at: t(0, 30), scans: 1, contributors7d: 1 });
      expect(anon.headers.get('vary')).toBe('Authorization, Cookie');
      const ats = live.body.markets.map((x: { at: number }) => x.at);
      expect(ats).toEqual([...ats].sort((a: number, b: number) => b - a));
      await local.setClock(t(24, 31));
      expect(find((await get('/api/v1/ah', tiers.premium)).body)).toMatchObject({ scans: 0, contributors7d: 1 });
    });

    it('counts a complete book without buyouts as the newest scan and changes no rows', async () => {
      await post(MC, t(24, 35), [[9002, 0, 1, 3, 1]]);
      const m = await get('/api/v1/ah', tiers.premium);
      expect(m.body.markets.find((x: { market: string }) => x.market === MC)).toMatchObject({
        at: t(24, 35),
        items: 1,
        listed: 1,
        scans: 1,
        contributors7d: 2,
      });
      expect((await get(`/api/v1/ah/${MC}`, tiers.premium)).body.rows).toEqual([[9001, 10, 1, t(0, 30)]]);
      expect((await get(`/api/v1/ah/${MC}/9002/book`, tiers.premium)).body).toMatchObject({ at: t(24, 35), entries: [[0, 1, 3, 1]] });
    });
  });

  describe('day 1 and later', () => {
    it("gives an item with only a volume estimate in history; the hourly view leaves today's volume out", async () => {
      await post(MA, t(24, 40), [
        [A1, 400, 10, 3, 1],
        [A2, 800, 1, 3, 1],
      ]);
      await local.setClock(t(25, 10));
      // T3 (13:00 of day 0) is 11 h 40 min older: no estimate. Re-upload so the next book is within 6 hours.
      await post(MA, t(25, 20), [
        [A1, 400, 10, 3, 1],
        [A2, 800, 1, 3, 1],
        [A4, 900, 1, 4, 1],
      ]);
      await post(MA, t(26, 30), [
        [A1, 400, 10, 3, 1],
        [A2, 800, 1, 3, 1],
      ]);
      await local.setClock(t(27, 5));
      const h = await get(`/api/v1/ah/${MA}/history?from=${day0 + 1}`, tiers.premium);
      expect(h.body.items).toEqual([
        [A1, [[day0 + 1, 400, 400, 400, 400, 10]], [[day0 + 1, 0, 0, 0]]],
        [A2, [[day0 + 1, 800, 800, 800, 800, 1]], [[day0 + 1, 0, 0, 0]]],
        [A4, [[day0 + 1, 900, 900, 900, 900, 1]], [[day0 + 1, 1, 1, 0]]],
      ]);
      // Hourly view with depth: 90 days, yesterday's volume, today's left out.
      const deep = await get(`/api/v1/ah/${MA}/${A1}`, depthOnly);
      expect(deep.body).toMatchObject({ live: false, volume: [[day0, 10, 5, 20]] });
      expect(deep.body.days).toEqual([
        [day0, 300, 400, 10],
        [day0 + 1, 400, 400, 10],
      ]);
      const deepHistory = await get(`/api/v1/ah/${MA}/history?from=${day0}`, depthOnly);
      expect(deepHistory.body.from).toBe(day0);
      expect(deepHistory.body.items[0]).toEqual([
        A1,
        [
          [day0, 500, 500, 300, 400, 10],
          [day0 + 1, 400, 400, 400, 400, 10],
        ],
        [[day0, 10, 5, 20]],
      ]);
    });

    it('includes an item whose only data in the window is a volume estimate', async () => {
      await post(MA, t(45), [
        [A1, 400, 10, 3, 1],
        [A2, 800, 1, 3, 1],
      ]);
      // 3 h 40 min later, on day 2, A2 is gone: an estimate on day 2 but no day-2 candle.
      await post(MA, t(48, 40), [[A1, 400, 10, 3, 1]]);
      await local.setClock(t(49, 10));
      const h = await get(`/api/v1/ah/${MA}/history?from=${day0 + 2}`, tiers.premium);
      expect(h.body.items).toEqual([
        [A1, [[day0 + 2, 400, 400, 400, 400, 10]], [[day0 + 2, 0, 0, 0]]],
        [A2, [], [[day0 + 2, 0, 1, 0]]],
      ]);
    });

    it('clamps chart windows to historyDays and retention, reporting from', async () => {
      await local.setClock(t(8 * 24 + 1));
      const today = day0 + 8;
      const hourNow = Math.floor(t(8 * 24 + 1) / HOUR);
      // d1 for 7-day callers: from day today − 7; day 0 is out, day 1 in.
      const anon = await get(`/api/v1/ah/${MA}/${A1}/candles?from=0`);
      expect(anon.body.candles.map((c: number[]) => c[0])).toEqual([(day0 + 1) * DAY, (day0 + 2) * DAY]);
      const premium = await get(`/api/v1/ah/${MA}/${A1}/candles?from=0`, tiers.premium);
      expect(premium.body.candles.map((c: number[]) => c[0])).toEqual([D0, (day0 + 1) * DAY, (day0 + 2) * DAY]);
      const anonItem = await get(`/api/v1/ah/${MA}/${A1}`);
      expect(anonItem.body.days.map((d: number[]) => d[0])).toEqual([day0 + 1, day0 + 2]);
      // h1 for 7-day callers: 168 hours back.
      const h1 = await get(`/api/v1/ah/${MA}/${A1}/candles?res=h1&from=0`);
      expect(h1.body.candles.every((c: number[]) => c[0] >= (hourNow - 168) * HOUR)).toBe(true);
      expect(h1.body.candles.map((c: number[]) => c[0])).toEqual([t(24), t(25), t(26), t(45), t(48)].filter((x) => x >= (hourNow - 168) * HOUR));
      const history = await get(`/api/v1/ah/${MA}/history?from=0`);
      expect(history.body.from).toBe(today - 7);
      const deep = await get(`/api/v1/ah/${MA}/history?from=0`, tiers.premium);
      expect(deep.body.from).toBe(today - 90);
      const intraday = await get(`/api/v1/ah/${MA}/intraday?from=0`, tiers.premium);
      expect(intraday.body.from).toBe(hourNow - 336);
      expect((await get(`/api/v1/ah/${MA}/intraday`, tiers.premium)).body).toMatchObject({ from: hourNow - 24, items: [] });
    });

    it("puts the 7 days before the snapshot hour's day into its days, and every row of the last 30 days", async () => {
      const admin = await local.user({ plan: 'free', grants: ['admin'] });
      expect((await local.api('POST', '/api/v1/admin/snapshot', { token: await local.session(admin.id), body: {} })).status).toBe(200);
      const snap = await get(`/api/v1/ah/${MA}/snapshot`);
      expect(snap.body).toMatchObject({
        at: t(8 * 24 + 1),
        scan: t(48, 40),
        rows: [
          [A1, 400, 10, t(48, 40)],
          [A2, null, 0, t(48, 40)],
          [A3, null, 0, t(48, 40)],
          [A4, null, 0, t(48, 40)],
        ],
        days: [
          [
            A1,
            [
              [day0 + 1, 400, 10],
              [day0 + 2, 400, 10],
            ],
          ],
          [A2, [[day0 + 1, 800, 1]]],
          [A4, [[day0 + 1, 900, 1]]],
        ],
      });
    });
  });

  describe('errors', () => {
    it('answers 403 with the feature before checking the path', async () => {
      expect((await get('/api/v1/ah/forever.moon.us/intraday')).body).toMatchObject({ error: 'forbidden', feature: 'prices.live' });
      expect((await get('/api/v1/ah/forever.moon.us/books', tiers.free)).body).toMatchObject({ error: 'forbidden', feature: 'books' });
      expect((await get(`/api/v1/ah/${MA}/${A1}/candles?res=m1`, tiers.contributor)).body).toMatchObject({ error: 'forbidden', feature: 'candles.minute' });
      expect((await get(`/api/v1/ah/${MA}/history`, tiers.premium)).status).toBe(200);
    });

    it('answers 400 bad_market, bad_item and bad_query', async () => {
      const p = tiers.premium;
      const cases: Array<[string, string]> = [
        ['/api/v1/ah/forever.moon.us/intraday', 'bad_market'],
        ['/api/v1/ah/forever.normal.alliance.eu/history', 'bad_market'],
        ['/api/v1/ah/FOREVER.normal.alliance.us/25', 'bad_market'],
        ['/api/v1/ah/forever.moon.us/books', 'bad_market'],
        ['/api/v1/ah/forever.moon.us/books/1', 'bad_market'],
        ['/api/v1/ah/forever.moon.us/25/book', 'bad_market'],
        ['/api/v1/ah/forever.moon.us/25/candles', 'bad_market'],
        ['/api/v1/ah/forever.moon.us/candles?items=25', 'bad_market'],
        [`/api/v1/ah/${MA}/2147483648`, 'bad_item'],
        [`/api/v1/ah/${MA}/${KEY_BASE * 65536 + 25}`, 'bad_item'],
        [`/api/v1/ah/${MA}/9007199254740993`, 'bad_item'],
        [`/api/v1/ah/${MA}/-5`, 'bad_item'],
        [`/api/v1/ah/${MA}/2147483648/candles`, 'bad_item'],
        [`/api/v1/ah/${MA}/2147483648/book`, 'bad_item'],
        [`/api/v1/ah/${MA}/25/candles?res=`, 'bad_query'],
        [`/api/v1/ah/${MA}/25/candles?res=D1`, 'bad_query'],
        [`/api/v1/ah/${MA}/25/candles?from=abc`, 'bad_query'],
        [`/api/v1/ah/${MA}/candles?items=25,abc`, 'bad_query'],
        [`/api/v1/ah/${MA}/candles?items=25,`, 'bad_query'],
        [`/api/v1/ah/${MA}/candles`, 'bad_query'],
        [`/api/v1/ah/${MA}/candles?items=25&res=w1`, 'bad_query'],
        [`/api/v1/ah/${MA}/intraday?from=-1`, 'bad_query'],
        [`/api/v1/ah/${MA}/history?from=1.5`, 'bad_query'],
        [`/api/v1/ah/${MA}/books?from=5&to=4`, 'bad_query'],
        [`/api/v1/ah/${MA}/books?from=x`, 'bad_query'],
      ];
      for (const [path, error] of cases) {
        const res = await get(path, p);
        expect([res.status, res.body?.error], path).toEqual([400, error]);
      }
      // The largest key (item 2^31-1, v 4194303) is valid.
      const max = await get(`/api/v1/ah/${MA}/9007199254740991`, p);
      expect(max.body).toMatchObject({ item: 9007199254740991, row: null, days: [], volume: [] });
      // Anonymous callers: a bad res is 400 before the feature of res.
      expect((await get(`/api/v1/ah/${MA}/25/candles?res=x`)).body).toMatchObject({ error: 'bad_query' });
    });

    it('answers 404 for unknown books and paths, 405 for other methods', async () => {
      expect((await get(`/api/v1/ah/${MA}/books/${T1 + 1}`, tiers.premium)).body).toMatchObject({ error: 'unknown_book' });
      expect((await get(`/api/v1/ah/${MB}/books/${T1}`, tiers.premium)).body).toMatchObject({ error: 'unknown_book' });
      const ok = await get(`/api/v1/ah/${MA}/books/${T1}`, tiers.premium);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('cache-control')).toBe('private, max-age=86400');
      expect((await get(`/api/v1/ah/${MA}/25/nothing`, tiers.premium)).status).toBe(404);
      expect((await get(`/api/v1/ah/${MA}/25/nothing`, tiers.premium)).body).toMatchObject({ error: 'not_found' });
      for (const path of [`/api/v1/ah/${MA}/25`, `/api/v1/ah/${MA}/history`, `/api/v1/ah/${MA}/25/candles`, '/api/v1/ah']) {
        const res = await local.api('DELETE', path, { token: tiers.premium });
        expect([res.status, res.body?.error], path).toEqual([405, 'method_not_allowed']);
      }
    });
  });
});
