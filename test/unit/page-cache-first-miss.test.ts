/**
 * Issue 27 point 4 (single-item fresh read units): a fresh instance's live single-item answer reads its row,
 * day candle and volume shards eventually consistent (half the units), as an uncached read does; a page is read strongly consistent (and
 * cached) only when the instance misses it a second time, and answered from memory after that. Every answer
 * equals the one of an instance that caches nothing. The in-memory fake store counts which side each page
 * read went to (`latest`: strongly consistent; `pages`: eventually consistent).
 */
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, ManualClock } from '../../shared/clock';
import { compactHistories } from '../../shared/market/history-compaction';
import { itemDays } from '../../shared/market/item-read';
import { cachedReadSources, rowsOf } from '../../shared/market/page-cache';
import { clearReadCaches } from '../../shared/market/read-cache';
import { type ReadSources, readSources } from '../../shared/market/sources';
import type { MarketPages } from '../../shared/ports/market';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';
import { mergeWrites } from '../support/merge-writes';

const M = 'forever.pvp.horde.us';
const START = Date.UTC(2026, 10, 2, 6);
/** The page reads of the single-item path (META and the compaction mark are not pages; history shards: history-stamp.test.ts). */
const PAGE_READS = ['rowShards', 'candleShards', 'volumeShardsOf', 'rowsOf', 'candlesOf', 'volumeOf'] as const;

function counting(store: MarketPages): { store: MarketPages; reads: string[] } {
  const reads: string[] = [];
  const wrapped = Object.create(store) as MarketPages;
  for (const name of PAGE_READS) {
    const own = (store[name] as (...args: unknown[]) => unknown).bind(store);
    (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      reads.push(name);
      return own(...args);
    };
  }
  return { store: wrapped, reads };
}

describe('a page missed for the first time is read eventually consistent (issue 27 point 4)', () => {
  it('a fresh instance reads no page strongly; the second miss reads and caches it; the third read reads none', async () => {
    const clock = new ManualClock(START);
    const base = memoryMarket(clock);
    const strong = counting(base.latest);
    const eventual = counting(base.pages);
    const market = { ...base, latest: strong.store, pages: eventual.store };
    const svc = { clock, market } as unknown as Services;
    for (let d = 0; d < 6; d++) {
      await mergeWrites(
        M,
        base,
        clock.now(),
        clock.now(),
        [
          [16, 10 + d],
          [528, 20 + d],
        ],
        async () => undefined,
      );
      clock.advance(DAY_MS);
    }
    await compactHistories({ clock, market: base }, M, dayOf(clock.now()));
    const answer = async (src: ReadSources) => {
      const now = clock.now();
      const [rows, days] = await Promise.all([rowsOf(src, M, [16]), itemDays(src, M, 16, dayOf(now) - 90, dayOf(now), true)]);
      return { row: rows.get(16) ?? null, candles: [...days.candles].sort((a, b) => a[0] - b[0]), volume: [...days.volume].sort((a, b) => a[0] - b[0]) };
    };
    const uncached = await answer({ ...readSources({ clock, market: base }), scope: 'uncached' });
    expect(uncached.candles.length).toBeGreaterThan(3);

    clearReadCaches();
    const reads = () => ({ strong: strong.reads.splice(0), eventual: eventual.reads.splice(0) });
    expect(await answer(await cachedReadSources(svc, M))).toEqual(uncached);
    const first = reads();
    expect(first.strong).toEqual([]);
    expect(first.eventual.length).toBeGreaterThan(0);

    expect(await answer(await cachedReadSources(svc, M))).toEqual(uncached);
    const second = reads();
    expect(second.eventual).toEqual([]);
    expect(second.strong.length).toBeGreaterThan(0);

    expect(await answer(await cachedReadSources(svc, M))).toEqual(uncached);
    expect(reads()).toEqual({ strong: [], eventual: [] });
  });
});
