import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import type { MarketPages } from '../../shared/ports/market';
import { cdnJson, listFiles, makeBook, uploadBook, withEntries } from '../support/books';
import { type Local, startLocal } from '../support/local';

/** Integration: what merges of books do to a market (spec Market rules; files: change files and checkpoints). */
describe('merging books', () => {
  let local: Local;
  let store: MarketPages;
  let now: number;
  const key = async () => local.apiKey((await local.user()).id);
  /** A file's rows by item (the spec sets no order for them). */
  const byItem = (rows: Array<[number, ...unknown[]]>) => [...rows].sort((a, b) => a[0] - b[0]);

  beforeAll(async () => {
    local = await startLocal();
    now = await local.now();
    store = local.runtime.operator.market.latest;
  });
  afterAll(() => local.close());

  it('merges rows, gone rows, candles, volume, the current book, logs and files in seq order', async () => {
    const market = 'forever.normal.alliance.us';
    const t1 = now - 30 * MINUTE_MS;
    const t2 = t1 + 10 * MINUTE_MS;
    const t3 = t1 + 5 * MINUTE_MS;
    const t4 = t2 + 10 * MINUTE_MS;
    const b1 = makeBook(t1, { market, keys: 120 });
    // Book 2 lists 100 of the keys at new prices: the other 20 are gone; every old auction sold, 100 new listed.
    const b2 = makeBook(t2, { market, keys: 100, price: (i) => 20_000 + i });
    const b3 = makeBook(t3, { market, keys: 10, complete: false, price: () => 5 });
    const b4 = withEntries({ ...b1, at: t4, entries: [] });
    for (const b of [b1, b2, b3, b4]) {
      expect((await uploadBook(local, await key(), b)).status).toBe(200);
      await local.settle();
    }
    const meta = await store.meta(market);
    expect(meta).toMatchObject({ seq: 4, newestScanAt: t4, pending: null });
    expect(meta.currentBook).toMatchObject({ at: t4, complete: true, auctions: 0, entries: 0 });

    const rows = await store.rows(market);
    expect(rows.size).toBe(120);
    expect(rows.get(1000)).toMatchObject({ price: 20_000, quantity: 1, at: t2 });
    expect(rows.get(1119)).toMatchObject({ price: null, quantity: 0, at: t2 });

    const day = Math.floor(t1 / DAY_MS);
    const d1 = (await store.candlePage(market, 'd1', day)).get(1000);
    // The late incomplete book lowers the low but neither the open (earlier) nor the close (later readings).
    expect(d1).toMatchObject({ open: 10_000, high: 20_000, low: 5, close: 20_000, openAt: t1, lastAt: t2 });
    expect((await store.candlePage(market, 'm1', Math.floor(t3 / MINUTE_MS))).get(1000)).toMatchObject({ open: 5, close: 5 });
    expect((await store.candlePage(market, 'h1', Math.floor(t1 / HOUR_MS))).size).toBeGreaterThan(0);
    // Items missing from a complete scan get no candle in its period.
    expect((await store.candlePage(market, 'm1', Math.floor(t2 / MINUTE_MS))).has(1119)).toBe(false);

    // Book 2 against book 1: key 1000's old auction sold, its new one listed; 1119 sold. The empty complete
    // book 4 then replaces book 2 (10 minutes older): every auction of book 2 counts as sold once more.
    const volume = await store.volumePage(market, day);
    expect(volume.get(1000)).toEqual([1, 2, 0]);
    expect(volume.get(1119)).toEqual([0, 1, 0]);

    const records = await local.runtime.operator.market.merges.after(market, 0, now);
    expect(records.map((r) => [r.seq, r.at, r.bookAt])).toEqual([
      [1, t1, t1],
      [2, t2, t2],
      [3, t2, t3],
      [4, t4, t4],
    ]);
    expect(records[0].checkpointPath).toMatch(/^live\/v1\/forever\.normal\.alliance\.us\/c1-[A-Za-z0-9_-]{22}\.json\.gz$/);
    expect(records.slice(1).every((r) => r.checkpointPath === undefined)).toBe(true);
    const change2 = await cdnJson(local, records[1].changePath);
    expect(change2).toMatchObject({ v: 1, market, seq: 2, at: t2 });
    // Every row the merge changed: the 100 listed at their new prices, the 20 a complete scan marked gone.
    expect(byItem(change2.rows)).toEqual([
      ...Array.from({ length: 100 }, (_, i) => [1000 + i, 20_000 + i, 1, t2]),
      ...Array.from({ length: 20 }, (_, i) => [1100 + i, null, 0, t2]),
    ]);
    expect((await cdnJson(local, records[2].changePath)).rows).toEqual([]);
    expect((await cdnJson(local, records[3].changePath)).rows).toEqual([]);
    const checkpoint = await cdnJson(local, records[0].checkpointPath as string);
    // The whole table after merge 1: book 1's 120 listings.
    expect(checkpoint).toMatchObject({ v: 1, market, seq: 1, at: t1 });
    expect(byItem(checkpoint.rows)).toEqual(Array.from({ length: 120 }, (_, i) => [1000 + i, 10_000 + i * 10, 1, t1]));
    const live = await listFiles(local, `live/v1/${market}/`);
    // The checkpoint after merge 1 and one change file per merge, each at the path its merge record names.
    expect(live.map((f) => f.key).sort()).toEqual([records[0].checkpointPath, ...records.map((r) => r.changePath)].sort());
    for (const [i, r] of records.entries())
      expect(r.changePath).toMatch(new RegExp(`^live/v1/forever\\.normal\\.alliance\\.us/${i + 1}-[A-Za-z0-9_-]{22}\\.json\\.gz$`));
    expect(live.every((f) => f.contentEncoding === 'gzip' && f.cacheControl === 'public, max-age=31536000, immutable')).toBe(true);

    const scans = await local.runtime.operator.market.scans.between(market, 0, now);
    expect(scans.map((s) => [s.at, s.items, s.complete])).toEqual([
      [t1, 120, true],
      [t3, 10, false],
      [t2, 100, true],
      [t4, 0, true],
    ]);
    expect(new Set(scans.map((s) => s.uploader)).size).toBe(4);
    const books = await local.runtime.operator.market.books.between(market, 0, now);
    expect(books.map((b) => b.at)).toEqual([t4, t2, t3, t1]);
    expect(books[1]).toMatchObject({ complete: true, auctions: 100, entries: 100, path: expect.stringMatching(/^books\/v1\//) });
  });

  it('merges 20 parallel uploads to one market densely: one per caller passes the 5-minute limit, no merge lost', async () => {
    const market = 'forever.pvp.horde.us';
    const callers = await Promise.all(Array.from({ length: 10 }, () => key()));
    const uploads = callers.flatMap((k, c) =>
      [0, 1].map((j) =>
        uploadBook(local, k, makeBook(now - 60 * MINUTE_MS + c * 1000 + j, { market, keys: 5, first: 100_000 + c * 100 + j * 10, complete: false })),
      ),
    );
    const results = await Promise.all(uploads);
    for (let c = 0; c < 10; c++)
      expect(
        results
          .slice(2 * c, 2 * c + 2)
          .map((r) => r.status)
          .sort(),
      ).toEqual([200, 409]);
    await local.settle();
    const meta = await store.meta(market);
    expect(meta.seq).toBe(10);
    const records = await local.runtime.operator.market.merges.after(market, 0, now);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await store.rows(market)).size).toBe(50);
  });

  it("evaluates the market's alerts as part of the merge", async () => {
    const u = await local.user();
    const session = await local.session(u.id, { expiresIn: 86_400 });
    const market = 'forever.rp.horde.us';
    const created = await local.api('POST', '/api/v1/market/alerts', { token: session, body: { market, item: 1005, kind: 'below', value: 10_050 } });
    expect(created.status).toBe(200);
    const now = await local.now();
    expect((await uploadBook(local, await local.apiKey(u.id), makeBook(now - MINUTE_MS, { market }))).status).toBe(200);
    await local.settle();
    const alerts = (await local.api('GET', '/api/v1/market/alerts', { token: session })).body.alerts;
    expect(alerts[0]).toMatchObject({ armed: false, last: { at: now, hits: [[1005, 10_050, 1]] } });
  });
});
