import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { runRetention } from '../../shared/market/market-retention';
import { services } from '../../shared/services';
import { MarketStore } from '../../shared/store/market-store';
import { ScanLog } from '../../shared/store/scan-log';
import { listFiles, makeBook, uploadBook } from '../support/books';
import { type Local, startLocal } from '../support/local';

const MARKET = 'forever.normal.alliance.us';

/** Integration: spec Retention on the manual clock (the schedule runs on `tick`, at most every 6 hours). */
describe('market retention', () => {
  let local: Local;
  let store: MarketStore;

  beforeAll(async () => {
    local = await startLocal();
    store = new MarketStore(services().ddb, services().config.tableName);
  });
  afterAll(() => local.close());

  const pageCount = async (res: 'm1' | 'h1' | 'd1', at: number) => {
    const period = Math.floor(at / (res === 'm1' ? MINUTE_MS : res === 'h1' ? HOUR_MS : DAY_MS));
    return (await store.candlePage(MARKET, res, period)).size;
  };

  it('deletes old rows, candle pages, volume, history days and quarantined bodies, keeping the rest', async () => {
    const a = await local.apiKey((await local.user()).id);
    const b = await local.apiKey((await local.user()).id);
    const c = await local.apiKey((await local.user()).id);
    let now = await local.now();
    const tA = now - MINUTE_MS;
    expect((await uploadBook(local, a, makeBook(tA, { market: MARKET, keys: 120 }))).status).toBe(200);
    await local.settle();
    await local.advance(10 * MINUTE_MS);
    now = await local.now();
    // A complete book replacing the first one 10 minutes later yields volume for day A.
    expect((await uploadBook(local, b, makeBook(now - MINUTE_MS, { market: MARKET, keys: 120 }))).status).toBe(200);
    await local.settle();
    console.log('VOL', (await store.volumePage(MARKET, Math.floor(tA / DAY_MS))).size, JSON.stringify(await store.meta(MARKET)));
    const wild = makeBook(now - 2 * MINUTE_MS, { market: MARKET, keys: 30, price: () => 1 });
    expect((await uploadBook(local, c, wild)).body).toMatchObject({ reason: 'disagrees' });
    expect(await listFiles(local, `quarantine/${MARKET}/`)).toHaveLength(1);
    await local.advance(2 * DAY_MS);
    now = await local.now();
    const tB = now - MINUTE_MS;
    expect((await uploadBook(local, a, makeBook(tB, { market: MARKET, keys: 10, complete: false }))).status).toBe(200);
    await local.settle();
    // Compacted history as the daily compaction leaves it: a day older than 90 days and day B.
    const dayA = Math.floor(tA / DAY_MS);
    const dayB = Math.floor(tB / DAY_MS);
    const candle = { open: 1, high: 1, low: 1, close: 1, quantity: 1, openAt: tA, lastAt: tA };
    await store.writeHistories(MARKET, new Map([[1000 % 512, new Map([
      [dayA - 100, { candles: new Map([[1000, { ...candle, openAt: tA - 100 * DAY_MS, lastAt: tA - 100 * DAY_MS }]]), volume: new Map() }],
      [dayB, { candles: new Map([[1000, { ...candle, openAt: tB, lastAt: tB }]]), volume: new Map() }],
    ])]]));
    const meta = await store.meta(MARKET);
    expect(await store.commitMeta({ ...meta, historyThrough: dayB }, meta.seq)).toBe(true);

    // 31 days after book A, 29 after book B.
    await local.advance(29 * DAY_MS);
    expect(await local.tick()).toContain('retention');
    const rows = await store.rows(MARKET);
    expect([...rows.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => 1000 + i));
    expect([await pageCount('m1', tA), await pageCount('h1', tA), await pageCount('d1', tA)]).toEqual([0, 0, 120]);
    expect([await pageCount('m1', tB), await pageCount('h1', tB), await pageCount('d1', tB)]).toEqual([0, 0, 10]);
    expect((await store.volumePage(MARKET, dayA)).size).toBe(120);
    expect([...(await store.historyOf(MARKET, 1000)).keys()]).toEqual([dayB]);
    expect(await listFiles(local, `quarantine/${MARKET}/`)).toEqual([]);
    const scans = await new ScanLog(services().ddb, services().config.tableName, local.runtime.clock).between(MARKET, 0, await local.now());
    expect(scans.map((s) => s.at)).toEqual([tB]);
    // At most every 6 hours: a second run now does nothing.
    expect((await runRetention(services())).some((r) => r.ran)).toBe(false);

    // 91 days after day A: its day candles and volume go; day B (89 days) stays.
    await local.advance(60 * DAY_MS);
    expect(await local.tick()).toContain('retention');
    expect([await pageCount('d1', tA), (await store.volumePage(MARKET, dayA)).size, await pageCount('d1', tB)]).toEqual([0, 0, 10]);
    expect((await store.rows(MARKET)).size).toBe(0);
    expect((await store.meta(MARKET)).seq).toBe(3);
  });
});
