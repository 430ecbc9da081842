/**
 * The API function's read caches through the local runtime (issue 15 point 6: cost), on DynamoDB Local: a warm
 * instance answers a second item of the same shards for fewer read units, an item of a history shard it read
 * and a repeated item for the META read alone; a merge's new price shows at once (the seq read validates every cached page); after compaction moves
 * the mark, the warm answer equals a fresh instance's (`clearReadCaches()`). Read units are counted from
 * `ConsumedCapacity` as test/bench/reads.ts counts them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactHistories, finalDay } from '../../shared/market/history-compaction';
import { MARK_REUSE_MS } from '../../shared/market/item-read';
import { clearReadCaches } from '../../shared/market/read-cache';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';
import { services } from '../support/operator';
import { countReadUnits } from '../support/read-units';

const D0 = Math.floor(DEFAULT_START / DAY) * DAY;
/** Same row shard and page shard (key mod 16), different history shards (key mod 512). */
const A = 16;
const B = 32;
/** Another row and page shard. */
const C = 17;
/** A's row, page and history shard (key mod 512), another item. */
const D = A + 512;

describe('item reads from a warm instance', () => {
  let local: Local;
  let premium: string;
  let uploader: string;
  let reads: { take(): number };

  beforeAll(async () => {
    local = await startLocal();
    premium = (await tierTokens(local)).premium;
    uploader = await uploaderKey(local);
    // Four days of books, two a day (volume needs a previous book), then the finished days compacted.
    for (let d = 0; d < 4; d++)
      for (const h of [6, 12]) {
        await uploadAt(local, uploader, D0 + d * DAY + h * 3_600_000, [
          [A, 100 + d, 2],
          [B, 200 + d, 3],
          [C, 300 + d, 4],
          [D, 400 + d, 5],
        ]);
      }
    const svc = services();
    await compactHistories(svc, MARKET, finalDay(await local.now()));
    reads = countReadUnits(svc.ddb, 'cacheTestReadCapacity');
  });
  afterAll(() => local?.close());

  const read = async (key: number): Promise<{ units: number; body: Record<string, unknown> }> => {
    reads.take();
    const res = await local.api('GET', `/api/v1/ah/${MARKET}/${key}`, { token: premium });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { units: reads.take(), body: res.body };
  };

  it('answers a second item of the same shards for fewer read units, and a repeated one for the META read', async () => {
    clearReadCaches();
    await read(C); // the compaction mark is now known: the reads below differ only by what they find cached
    const a = await read(A);
    // A page is cached when an instance misses it a second time (issue 27 point 4: page-cache.ts).
    await read(A);
    const b = await read(B);
    expect(b.units).toBeLessThan(a.units - 2);
    const again = await read(A);
    expect(again.units).toBeLessThanOrEqual(1);
    expect(again.body).toEqual(a.body);
    clearReadCaches();
    expect((await read(B)).body).toEqual(b.body);
  });

  it('answers an item not read before, of a history shard read before, for the META read, as a fresh instance would', async () => {
    clearReadCaches();
    await read(C);
    await read(A);
    await read(A); // A's row, page and history shards are now cached (the second miss); D's history is in A's history shard
    const d = await read(D);
    expect(d.units).toBeLessThanOrEqual(1);
    clearReadCaches();
    const fresh = await read(D);
    expect(fresh.units).toBeGreaterThan(2);
    expect(d.body).toEqual(fresh.body);
  });

  it('answers repeated day candles of an item for the META read, as a fresh instance would', async () => {
    const candles = async () => {
      reads.take();
      const res = await local.api('GET', `/api/v1/ah/${MARKET}/${A}/candles?res=d1`, { token: premium });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { units: reads.take(), body: res.body as Record<string, unknown> };
    };
    clearReadCaches();
    const cold = await candles();
    await candles(); // cached on the second miss
    const warm = await candles();
    expect(warm.units).toBeLessThanOrEqual(1);
    expect(cold.units).toBeGreaterThan(warm.units);
    expect(warm.body).toEqual(cold.body);
    expect((warm.body.candles as unknown[]).length).toBeGreaterThan(2);
  });

  it("shows a merge's new price at once", async () => {
    await read(A);
    await uploadAt(local, uploader, (await local.now()) + 6 * MINUTE, [[A, 777, 1]]);
    const after = await read(A);
    expect((after.body.row as unknown[])[1]).toBe(777);
    // Day points are [day, low, close, quantity]: today's close is the new price.
    const days = after.body.days as Array<[number, number, number, number]>;
    expect(days[days.length - 1][2]).toBe(777);
  });

  it("equals a fresh instance's answer after compaction moved the mark", async () => {
    // Tomorrow, just past midnight: the read keeps the mark; then the day before yesterday becomes final and is compacted.
    await local.setClock(D0 + 4 * DAY + 5 * MINUTE);
    await read(A);
    await read(C);
    await local.setClock(D0 + 4 * DAY + 11 * MINUTE);
    const moved = await compactHistories(services(), MARKET, finalDay(await local.now()));
    expect(moved.days.length).toBeGreaterThan(0);
    // The mark read before compaction is still reused (its day comes from its page), then read again.
    const reused = await read(A);
    await local.advance(MARK_REUSE_MS);
    const reread = await read(A);
    clearReadCaches();
    const fresh = await read(A);
    expect({ ...reused.body, now: 0 }).toEqual({ ...fresh.body, now: 0 });
    expect({ ...reread.body, now: 0 }).toEqual({ ...fresh.body, now: 0 });
  });
});
