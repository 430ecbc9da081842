import { gzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactHistories } from '../../shared/market/history-compaction';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Market read routes over HTTP: answer shapes, windows and clamps, query errors and the gating of each tier
 * (anonymous, free, contributor, premium). Books are uploaded over HTTP across nine days.
 */
const D0 = Math.floor(DEFAULT_START / DAY) * DAY;
const day0 = D0 / DAY;
const at = (d: number, h: number, m = 0) => D0 + d * DAY + h * HOUR + m * MINUTE;
const K1 = 2589;
const K2 = 2592;
const K3 = 2770;
const NOW = at(9, 10, 15);
const TODAY = day0 + 9;
const HOUR_NOW = Math.floor(NOW / HOUR);

describe('market read routes', () => {
  let local: Local;
  let tiers: Awaited<ReturnType<typeof tierTokens>>;
  let ip = 0;
  const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
    local.api('GET', path, { token, headers: token ? headers : { 'x-forwarded-for': `10.2.0.${++ip % 250}`, ...headers } });
  const as = async (path: string) => ({
    anon: await get(path),
    free: await get(path, tiers.free),
    contributor: await get(path, tiers.contributor),
    premium: await get(path, tiers.premium),
  });

  beforeAll(async () => {
    local = await startLocal();
    tiers = await tierTokens(local);
    // Before any book: no snapshot file yet.
    const none = await get(`/api/v1/ah/${MARKET}/snapshot`);
    expect(none.status).toBe(404);
    const key = await uploaderKey(local);
    await uploadAt(local, key, at(0, 10), [
      [K1, 100, 2],
      [K2, 200, 1],
      [K3, 300, 4],
    ]);
    // Replaces the current book within 6 hours: volume estimates for day 0.
    await uploadAt(local, key, at(0, 12), [
      [K1, 110, 3],
      [K2, 200, 1],
    ]);
    await uploadAt(local, key, at(1, 10), [
      [K1, 120, 1],
      [K2, 210, 1],
    ]);
    await uploadAt(local, key, at(9, 8), [
      [K1, 130, 2],
      [K2, 220, 1],
      [K3, 310, 1],
    ]);
    await uploadAt(local, key, at(9, 9), [
      [K1, 125, 2],
      [K2, 220, 1],
      [K3, 310, 1],
    ]);
    await local.setClock(NOW);
  });
  afterAll(() => local.close());

  it('gates prices.live routes with 403 forbidden for anonymous and free callers', async () => {
    for (const path of [`/api/v1/ah/${MARKET}`, `/api/v1/ah/${MARKET}/intraday`, `/api/v1/ah/${MARKET}/candles?items=${K1}`]) {
      const r = await as(path);
      for (const denied of [r.anon, r.free])
        expect(denied.status === 403 && denied.body, path).toEqual({ error: 'forbidden', message: 'needs the prices.live feature', feature: 'prices.live' });
      expect(r.contributor.status, path).toBe(200);
      expect(r.premium.status, path).toBe(200);
    }
  });

  it('answers the live table with rows changed at or after since, and seq', async () => {
    const rows = [
      [K1, 125, 2, at(9, 9)],
      [K2, 220, 1, at(9, 9)],
      [K3, 310, 1, at(9, 9)],
    ];
    const all = await get(`/api/v1/ah/${MARKET}`, tiers.contributor);
    expect(all.body).toEqual({ market: MARKET, rows, seq: 5, now: NOW, live: true });
    expect(all.headers.get('cache-control')).toBe('private, no-store');
    // Every row was last changed by the 09:00 merge (its server time): since selects at or after it.
    expect((await get(`/api/v1/ah/${MARKET}?since=${at(9, 9)}`, tiers.contributor)).body.rows).toEqual(rows);
    expect((await get(`/api/v1/ah/${MARKET}?since=${at(9, 9) + 1}`, tiers.contributor)).body.rows).toEqual([]);
    expect((await get(`/api/v1/ah/${MARKET}?since=soon`, tiers.contributor)).body).toMatchObject({ error: 'bad_query' });
    expect((await get(`/api/v1/ah/${MARKET}?since=-1`, tiers.contributor)).status).toBe(400);
  });

  it('limits the single-item answer to historyDays and gives volume only with depth', async () => {
    const r = await as(`/api/v1/ah/${MARKET}/${K1}`);
    // Anonymous and free: 7 days back, no volume; the 08:00 and 09:00 readings are before the 10:00 cut.
    for (const low of [r.anon, r.free]) {
      expect(low.body).toEqual({ market: MARKET, item: K1, row: [K1, 125, 2, at(9, 9)], days: [[TODAY, 125, 125, 2]], volume: [], now: NOW, live: false });
    }
    for (const high of [r.contributor, r.premium]) {
      expect(high.body).toMatchObject({ row: [K1, 125, 2, at(9, 9)], live: true });
      expect(high.body.days).toEqual([
        [day0, 100, 110, 3],
        [day0 + 1, 120, 120, 1],
        [TODAY, 125, 125, 2],
      ]);
      expect(high.body.volume).toEqual([
        [day0, 3, 2, 0],
        [TODAY, 2, 2, 0],
      ]);
    }
    expect((await get(`/api/v1/ah/${MARKET}/${K3}`, tiers.premium)).body.volume).toEqual([
      [day0, 0, 4, 0],
      [TODAY, 0, 0, 0],
    ]);
    expect((await get(`/api/v1/ah/${MARKET}/4444`, tiers.premium)).body).toMatchObject({ item: 4444, row: null, days: [], volume: [] });
  });

  it('answers the same single-item data from compacted history as from day pages', async () => {
    const before = (await get(`/api/v1/ah/${MARKET}/${K1}?v=1`, tiers.premium)).body;
    const result = await compactHistories(local.runtime.operator, MARKET, TODAY);
    expect(result.through).toBe(TODAY - 2);
    const after = (await get(`/api/v1/ah/${MARKET}/${K1}?v=1`, tiers.premium)).body;
    expect(after).toEqual(before);
    expect((await get(`/api/v1/ah/${MARKET}/${K1}/candles?v=2`, tiers.premium)).body.candles).toEqual([
      [D0, 100, 110, 100, 110, 3],
      [D0 + DAY, 120, 120, 120, 120, 1],
      [TODAY * DAY, 130, 130, 125, 125, 2],
    ]);
  });

  it('serves candle windows per resolution and tier, with their features', async () => {
    const d1 = await as(`/api/v1/ah/${MARKET}/${K1}/candles?from=0`);
    expect(d1.anon.body).toMatchObject({ market: MARKET, item: K1, res: 'd1', volume: [], live: false });
    expect(d1.anon.body.candles).toEqual([[TODAY * DAY, 130, 130, 125, 125, 2]]);
    expect(d1.premium.body.candles).toHaveLength(3);
    expect(d1.premium.body.volume).toEqual([
      [day0, 3, 2, 0],
      [TODAY, 2, 2, 0],
    ]);
    const h1 = await as(`/api/v1/ah/${MARKET}/${K1}/candles?res=h1`);
    expect(h1.anon.body.candles).toEqual([
      [at(9, 8), 130, 130, 130, 130, 2],
      [at(9, 9), 125, 125, 125, 125, 2],
    ]);
    // 336 hours back for 90-day callers reaches day 0 (216 hours ago).
    expect(h1.premium.body.candles.map((c: number[]) => c[0])).toEqual([at(0, 10), at(0, 12), at(1, 10), at(9, 8), at(9, 9)]);
    const later = await get(`/api/v1/ah/${MARKET}/${K1}/candles?res=h1&from=${at(9, 8, 30)}`, tiers.premium);
    expect(later.body.candles).toEqual([[at(9, 9), 125, 125, 125, 125, 2]]);
    const m1 = await as(`/api/v1/ah/${MARKET}/${K1}/candles?res=m1`);
    for (const denied of [m1.anon, m1.free, m1.contributor]) expect(denied.body).toMatchObject({ error: 'forbidden', feature: 'candles.minute' });
    expect(m1.premium.body).toMatchObject({ res: 'm1', live: true });
    expect(m1.premium.body.candles).toEqual([
      [at(9, 8), 130, 130, 130, 130, 2],
      [at(9, 9), 125, 125, 125, 125, 2],
    ]);
  });

  it('answers batch candles one entry per key in request order, without volume', async () => {
    const res = await get(`/api/v1/ah/${MARKET}/candles?items=${K3},4444,${K1}&res=d1&from=${TODAY * DAY}`, tiers.contributor);
    expect(res.body).toEqual({
      market: MARKET,
      res: 'd1',
      items: [
        [K3, [[TODAY * DAY, 310, 310, 310, 310, 1]]],
        [4444, []],
        [K1, [[TODAY * DAY, 130, 130, 125, 125, 2]]],
      ],
      now: NOW,
    });
    const m1 = await get(`/api/v1/ah/${MARKET}/candles?items=${K1}&res=m1`, tiers.contributor);
    expect(m1.body).toMatchObject({ error: 'forbidden', feature: 'candles.minute' });
  });

  it('answers intraday from a UTC hour, default 24 hours back, served from 336 hours at most', async () => {
    const res = await get(`/api/v1/ah/${MARKET}/intraday`, tiers.contributor);
    expect(res.body).toEqual({
      market: MARKET,
      from: HOUR_NOW - 24,
      items: [
        [
          K1,
          [
            [HOUR_NOW - 2, 130, 2],
            [HOUR_NOW - 1, 125, 2],
          ],
        ],
        [
          K2,
          [
            [HOUR_NOW - 2, 220, 1],
            [HOUR_NOW - 1, 220, 1],
          ],
        ],
        [
          K3,
          [
            [HOUR_NOW - 2, 310, 1],
            [HOUR_NOW - 1, 310, 1],
          ],
        ],
      ],
      now: NOW,
    });
    const old = await get(`/api/v1/ah/${MARKET}/intraday?from=0`, tiers.contributor);
    expect(old.body.from).toBe(HOUR_NOW - 336);
    expect(old.body.items[0]).toEqual([
      K1,
      [
        [HOUR_NOW - 216, 100, 2],
        [HOUR_NOW - 214, 110, 3],
        [HOUR_NOW - 192, 120, 1],
        [HOUR_NOW - 2, 130, 2],
        [HOUR_NOW - 1, 125, 2],
      ],
    ]);
  });

  it('clamps history from to historyDays and reports it; volume only with depth', async () => {
    const anon = await get(`/api/v1/ah/${MARKET}/history?from=${day0}`);
    expect(anon.body).toMatchObject({ market: MARKET, from: TODAY - 7, live: false });
    expect(anon.body.items).toEqual([
      [K1, [[TODAY, 130, 130, 125, 125, 2]], []],
      [K2, [[TODAY, 220, 220, 220, 220, 1]], []],
      [K3, [[TODAY, 310, 310, 310, 310, 1]], []],
    ]);
    const premium = await get(`/api/v1/ah/${MARKET}/history?from=${day0}`, tiers.premium);
    expect(premium.body).toMatchObject({ from: day0, live: true });
    expect(premium.body.items[2]).toEqual([
      K3,
      [
        [day0, 300, 300, 300, 300, 4],
        [TODAY, 310, 310, 310, 310, 1],
      ],
      [
        [day0, 0, 4, 0],
        [TODAY, 0, 0, 0],
      ],
    ]);
    expect((await get(`/api/v1/ah/${MARKET}/history`, tiers.premium)).body.from).toBe(TODAY - 30);
    expect((await get(`/api/v1/ah/${MARKET}/history?from=${TODAY + 5}`, tiers.premium)).body.items).toEqual([]);
  });

  it('lists markets with data; book only for books callers', async () => {
    const r = await as('/api/v1/ah');
    expect(r.anon.body).toEqual({ markets: [{ market: MARKET, at: at(9, 9), items: 3, listed: 3, scans: 2, contributors7d: 1 }], now: NOW, live: false });
    expect(r.free.body.markets[0].book).toBeUndefined();
    const book = r.contributor.body.markets[0].book;
    expect(book).toMatchObject({ at: at(9, 9), complete: true, auctions: 3, entries: 3 });
    expect(book.url).toMatch(new RegExp(`^${local.base}/cdn/books/v1/${MARKET}/${at(9, 9)}-[A-Za-z0-9_-]{22}\\.json\\.gz$`));
  });

  it('answers books, a book file and an item book to books callers only', async () => {
    const r = await as(`/api/v1/ah/${MARKET}/books`);
    for (const denied of [r.anon, r.free]) expect(denied.body).toMatchObject({ error: 'forbidden', feature: 'books' });
    expect(r.contributor.body.books.map((b: { at: number }) => b.at)).toEqual([at(9, 9), at(9, 8), at(1, 10), at(0, 12), at(0, 10)]);
    expect(r.contributor.body.books[0]).toMatchObject({ at: at(9, 9), complete: true, auctions: 3, entries: 3 });
    const ranged = await get(`/api/v1/ah/${MARKET}/books?from=${at(1, 0)}&to=${at(9, 8)}`, tiers.contributor);
    expect(ranged.body.books.map((b: { at: number }) => b.at)).toEqual([at(9, 8), at(1, 10)]);
    expect((await get(`/api/v1/ah/${MARKET}/books?from=${at(9, 0)}&to=${at(1, 0)}`, tiers.contributor)).body).toMatchObject({ error: 'bad_query' });

    const gz = await fetch(`${local.base}/api/v1/ah/${MARKET}/books/${at(0, 12)}`, {
      headers: { authorization: `Bearer ${tiers.premium}`, 'accept-encoding': 'gzip' },
    });
    expect(gz.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.json()).toMatchObject({
      market: MARKET,
      at: at(0, 12),
      complete: true,
      auctions: 2,
      entries: [
        [K1, 110, 3, 3, 1],
        [K2, 200, 1, 3, 1],
      ],
    });
    const plain = await fetch(`${local.base}/api/v1/ah/${MARKET}/books/${at(0, 12)}`, {
      headers: { authorization: `Bearer ${tiers.premium}`, 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(await plain.text()).at).toBe(at(0, 12));
    expect((await get(`/api/v1/ah/${MARKET}/books/${at(0, 11)}`, tiers.premium)).body).toMatchObject({ error: 'unknown_book' });

    const itemBook = await get(`/api/v1/ah/${MARKET}/${K1}/book`, tiers.contributor);
    expect(itemBook.body).toEqual({ market: MARKET, item: K1, at: at(9, 9), entries: [[125, 2, 3, 1]], now: NOW });
    expect((await get(`/api/v1/ah/${MARKET}/${K1}/book`)).body).toMatchObject({ error: 'forbidden', feature: 'books' });
  });

  it('serves the newest hourly snapshot file to everyone, gzip when accepted', async () => {
    const { runtime } = local;
    const path = `snap/v1/${MARKET}/${HOUR_NOW}.json.gz`;
    const doc = { v: 1, market: MARKET, at: HOUR_NOW * HOUR, scan: at(9, 9), rows: [], days: [], now: NOW };
    await runtime.s3.send(
      new PutObjectCommand({
        Bucket: runtime.bucketName,
        Key: path,
        Body: gzipSync(JSON.stringify(doc)),
        ContentEncoding: 'gzip',
        ContentType: 'application/json',
      }),
    );
    await runtime.s3.send(
      new PutObjectCommand({
        Bucket: runtime.bucketName,
        Key: `snap/v1/${MARKET}/latest.json`,
        Body: JSON.stringify({ v: 1, market: MARKET, hour: HOUR_NOW, at: HOUR_NOW * HOUR, path }),
        ContentType: 'application/json',
      }),
    );
    const res = await fetch(`${local.base}/api/v1/ah/${MARKET}/snapshot`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('cache-control')).toBe(`public, max-age=${45 * 60 + 120}`);
    expect(await res.json()).toEqual(doc);
    const raw = await fetch(`${local.base}/api/v1/ah/${MARKET}/snapshot`, { headers: { 'accept-encoding': 'identity' } });
    expect(JSON.parse(await raw.text())).toEqual(doc);
  });

  it('answers 400 for every query rule and for bad markets and items', async () => {
    const p = tiers.premium;
    const cases: Array<[string, string]> = [
      [`/api/v1/ah/${MARKET}/${K1}/candles?res=h4`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/${K1}/candles?from=-5`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/${K1}/candles?from=1.5`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/candles?items=`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/candles?items=${K1},${K1}`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/candles?items=0`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/candles?items=${Array.from({ length: 51 }, (_, i) => i + 1).join(',')}`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/intraday?from=x`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/history?from=-1`, 'bad_query'],
      [`/api/v1/ah/${MARKET}/books?to=x`, 'bad_query'],
      [`/api/v1/ah/forever.normal.neutral.us/${K1}`, 'bad_market'],
      [`/api/v1/ah/${MARKET}/0`, 'bad_item'],
      [`/api/v1/ah/${MARKET}/12345678901234567`, 'bad_item'],
    ];
    for (const [path, error] of cases) {
      const res = await get(path, p);
      expect([res.status, res.body.error], path).toEqual([400, error]);
    }
    expect((await get(`/api/v1/ah/${MARKET}/candles?items=${Array.from({ length: 50 }, (_, i) => i + 1).join(',')}`, p)).status).toBe(200);
  });

  it('needs api.read for API keys on market reads, except the public snapshot', async () => {
    const u = await local.user({ plan: 'free' });
    const key = await local.apiKey(u.id, ['api.upload']);
    expect((await get('/api/v1/ah', key)).body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
    expect((await get(`/api/v1/ah/${MARKET}/snapshot`, key)).status).toBe(200);
  });

  it('never names an uploader or reader in an answer', async () => {
    for (const path of ['/api/v1/ah', `/api/v1/ah/${MARKET}`, `/api/v1/ah/${MARKET}/${K1}`, `/api/v1/ah/${MARKET}/books`]) {
      const text = JSON.stringify((await get(path, tiers.premium)).body);
      expect(text, path).not.toMatch(/uploader|reader|user_/);
    }
  });
});
