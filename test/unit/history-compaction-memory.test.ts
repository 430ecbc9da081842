/** Day history compaction on the market port's in-memory fake (no Java, no engine): what the seal job runs daily. */
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, ManualClock } from '../../shared/clock';
import type { Candle } from '../../shared/domain/candles';
import { compactHistories, finalDay } from '../../shared/market/history-compaction';
import { memoryMarket } from '../../shared/store/memory/market';

const D = 20_400;
const M = 'forever.pvp.horde.us';
const candle = (price: number): Candle => ({
  open: price,
  high: price,
  low: price,
  close: price,
  quantity: 3,
  openAt: D * DAY_MS + HOUR_MS,
  lastAt: D * DAY_MS + 2 * HOUR_MS,
});

describe('history compaction (in-memory market)', () => {
  it('folds finished days into the history shards, moves the mark to the newest final day, and repeats nothing', async () => {
    const clock = new ManualClock((D + 3) * DAY_MS + 12 * HOUR_MS);
    const svc = { clock, market: memoryMarket(clock) };
    await svc.market.pages.commitMeta({ market: M, seq: 1, firstMergeAt: D * DAY_MS + 6 * HOUR_MS }, 0);
    await svc.market.pages.writeCandlePage(
      M,
      'd1',
      D,
      D * DAY_MS,
      new Map([
        [7, candle(100)],
        [9, candle(200)],
      ]),
      [7, 9],
    );
    await svc.market.pages.writeVolumeShards(M, D, new Map([[7, { page: new Map([[7, [1, 2, 3]]]), bookAt: null }]]));

    const first = await compactHistories(svc, M, D + 5);
    expect(first.through).toBe(finalDay(clock.now()));
    expect(first.days).toContain(D);
    expect(first.days.at(-1)).toBe(first.through);
    expect(await svc.market.pages.historyMark(M)).toBe(first.through);
    const day = (await svc.market.pages.historyOf(M, 7)).get(D);
    expect(day?.candles.get(7)).toEqual(candle(100));
    expect(day?.volume.get(7)).toEqual([1, 2, 3]);
    expect((await svc.market.pages.historyOf(M, [9])).get(D)?.candles.get(9)).toEqual(candle(200));

    expect(await compactHistories(svc, M, D + 5)).toEqual({ through: first.through, days: [] });
  });
});
