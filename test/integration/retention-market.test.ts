import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { runRetention } from '../../shared/market/market-retention';
import type { MarketPages } from '../../shared/ports/market';
import { listFiles, makeBook, uploadBook } from '../support/books';
import { type Local, startLocal } from '../support/local';

const MARKET = 'forever.normal.alliance.us';

/**
 * Integration: spec Retention on the manual clock. The schedule is checked with `tick` before any merge
 * (later ticks would also make the seal job catch up on a month of candle files); the month-long runs
 * call the retention function's body directly at the advanced clock.
 */
describe('market retention', () => {
  let local: Local;
  let store: MarketPages;

  beforeAll(async () => {
    local = await startLocal();
    store = local.runtime.operator.market.latest;
  });
  afterAll(() => local.close());

  const pageCount = async (res: 'm1' | 'h1' | 'd1', at: number) => {
    const period = Math.floor(at / (res === 'm1' ? MINUTE_MS : res === 'h1' ? HOUR_MS : DAY_MS));
    return (await store.candlePage(MARKET, res, period)).size;
  };

  it('runs on its 6-hour schedule, at most every 6 hours per market', async () => {
    await local.advance(6 * HOUR_MS);
    expect(await local.tick()).toContain('retention');
    const now = await local.now();
    expect(await local.runtime.operator.market.retention.mark(MARKET)).toMatchObject({ ranAt: now });
    expect((await runRetention(local.runtime.operator)).some((r) => r.ran)).toBe(false);
  });

  it('deletes old rows, candle pages, volume, history days and quarantined bodies, keeping the rest', async () => {
    const [a, b, c] = await Promise.all([0, 1, 2].map(async () => local.apiKey((await local.user()).id)));
    let now = await local.now();
    const tA = now - MINUTE_MS;
    expect((await uploadBook(local, a, makeBook(tA, { market: MARKET, keys: 120 }))).status).toBe(200);
    await local.settle();
    await local.advance(10 * MINUTE_MS);
    now = await local.now();
    // A complete book replacing the first 10 minutes later yields volume; a wild one from another account is quarantined.
    expect((await uploadBook(local, b, makeBook(now - MINUTE_MS, { market: MARKET, keys: 120, price: (i) => 11_000 + i }))).status).toBe(200);
    await local.settle();
    expect((await uploadBook(local, c, makeBook(now - 2 * MINUTE_MS, { market: MARKET, keys: 30, price: () => 1 }))).body).toMatchObject({
      reason: 'disagrees',
    });
    expect(await listFiles(local, `quarantine/${MARKET}/`)).toHaveLength(1);
    await local.advance(HOUR_MS);
    now = await local.now();
    const tB = now - MINUTE_MS;
    expect((await uploadBook(local, a, makeBook(tB, { market: MARKET, keys: 10, complete: false }))).status).toBe(200);
    await local.settle();
    const day = Math.floor(tA / DAY_MS);
    expect(Math.floor(tB / DAY_MS)).toBe(day);
    // Compacted history as the daily compaction leaves it.
    const candle = (t: number) => ({ open: 1, high: 1, low: 1, close: 1, quantity: 1, openAt: t, lastAt: t });
    const history = new Map([
      [day, { candles: new Map([[1000, candle(tA)]]), volume: new Map() }],
      [day + 5, { candles: new Map([[1000, candle(tA + 5 * DAY_MS)]]), volume: new Map() }],
    ]);
    await store.writeHistories(MARKET, new Map([[1000 % 512, history]]));
    await store.putHistoryMark(MARKET, day + 5, await local.now());

    // Retention runs every 6 hours in production; three of its runs stand in for them here.
    await local.advance(4 * DAY_MS);
    expect((await runRetention(local.runtime.operator))[0]).toMatchObject({ ran: true, rowsDeleted: 0, quarantineDeleted: 0 });
    expect([await pageCount('m1', tA), await pageCount('h1', tA), await pageCount('m1', tB), await pageCount('h1', tB)]).toEqual([0, 120, 0, 10]);
    await local.advance(11 * DAY_MS);
    expect((await runRetention(local.runtime.operator))[0]).toMatchObject({ ran: true, rowsDeleted: 0, quarantineDeleted: 1 });
    expect([await pageCount('h1', tA), await pageCount('h1', tB), await pageCount('d1', tA)]).toEqual([0, 0, 120]);
    expect(await listFiles(local, `quarantine/${MARKET}/`)).toEqual([]);

    // 30 days and 30 minutes after book A, 29 and a half hours later than book B.
    await local.advance(15 * DAY_MS - 40 * MINUTE_MS);
    expect((await runRetention(local.runtime.operator))[0]).toMatchObject({ ran: true, rowsDeleted: 110, rowsWritten: true });
    expect([...(await store.rows(MARKET)).keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => 1000 + i));
    expect([await pageCount('d1', tA), (await store.volumePage(MARKET, day)).size]).toEqual([120, 120]);
    expect([...(await store.historyOf(MARKET, 1000)).keys()]).toEqual([day, day + 5]);
    const scans = await local.runtime.operator.market.scans.between(MARKET, 0, await local.now());
    expect(scans.map((s) => s.at)).toEqual([tB]);

    // 91 days on: the day's candles (day points), volume and history go; the later history day stays.
    await local.advance(61 * DAY_MS);
    const [second] = await runRetention(local.runtime.operator);
    expect(second).toMatchObject({ ran: true, rowsDeleted: 10, historyDaysDropped: 1 });
    expect([await pageCount('d1', tA), (await store.volumePage(MARKET, day)).size]).toEqual([0, 0]);
    expect([...(await store.historyOf(MARKET, 1000)).keys()]).toEqual([day + 5]);
    expect((await store.rows(MARKET)).size).toBe(0);
    expect((await store.meta(MARKET)).seq).toBe(3);
  });
});
