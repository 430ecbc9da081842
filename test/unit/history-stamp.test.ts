/**
 * Issue 27 point 4 (single-item fresh read units ≤ 15): compaction stamps each history shard with the mark it
 * writes it for, so a fresh API instance reads an item's history shard eventually consistent (half the units)
 * and keeps it only when the stamp shows the mark's days are in it; a replica that has not seen the last
 * compaction, or a shard stored before stamps, is read again strongly consistent and never answers. Every
 * answer equals the one of an instance that caches nothing, on a store that never lags. The in-memory fake
 * is the storage; `latest` is its strongly consistent side, `pages` the eventually consistent one.
 */
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, ManualClock } from '../../shared/clock';
import { compactHistories } from '../../shared/market/history-compaction';
import { itemDays } from '../../shared/market/item-read';
import { retainMarket } from '../../shared/market/market-retention';
import { cachedReadSources, rowsOf } from '../../shared/market/page-cache';
import { clearReadCaches } from '../../shared/market/read-cache';
import { type ReadSources, readSources } from '../../shared/market/sources';
import type { MarketPages, MarketPort } from '../../shared/ports/market';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';
import { laggingReplica } from '../support/lagging-replica';
import { mergeWrites } from '../support/merge-writes';

const M = 'forever.pvp.horde.us';
const START = Date.UTC(2026, 10, 2, 6);
const KEY = 16;
/** Every read of a history shard a store offers. */
const HISTORY_READS = ['historyShard', 'historyShardBytes', 'historyOf', 'histories'] as const;

/** `store` with its history shard reads logged by name. */
function counting(store: MarketPages): { store: MarketPages; reads: string[] } {
  const reads: string[] = [];
  const wrapped = Object.create(store) as MarketPages;
  for (const name of HISTORY_READS) {
    const method = store[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== 'function') continue;
    const own = method.bind(store);
    (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      reads.push(name);
      return own(...args);
    };
  }
  return { store: wrapped, reads };
}

/** Six days of merges of two keys, then a day's wait: compaction has final days to fold in. */
async function mergeDays(market: MarketPort, clock: ManualClock, days: number, price: number): Promise<void> {
  for (let d = 0; d < days; d++) {
    await mergeWrites(
      M,
      market,
      clock.now(),
      clock.now(),
      [
        [KEY, price + d],
        [528, price + 10 + d],
      ],
      async () => undefined,
    );
    clock.advance(DAY_MS);
  }
}

/** The live single-item answer's data: the row, 90 days of candles and volume. */
async function answer(src: ReadSources, now: number) {
  const [rows, days] = await Promise.all([rowsOf(src, M, [KEY]), itemDays(src, M, KEY, dayOf(now) - 90, dayOf(now), true)]);
  return { row: rows.get(KEY) ?? null, candles: [...days.candles].sort((a, b) => a[0] - b[0]), volume: [...days.volume].sort((a, b) => a[0] - b[0]) };
}

/** A market over one in-memory store whose two sides are `latest` and `pages` as given (wrapped from the base). */
function market(clock: ManualClock, sides: (base: MarketPort) => { latest: MarketPages; pages: MarketPages }) {
  const base = memoryMarket(clock);
  return { base, market: { ...base, ...sides(base) } };
}

/** A market whose eventually consistent side answers each history shard one write late, its strong side's reads counted. */
function laggingMarket(clock: ManualClock) {
  let strong: ReturnType<typeof counting> | undefined;
  const made = market(clock, (b) => {
    strong = counting(b.latest);
    return { latest: strong.store, pages: laggingReplica(b.pages) };
  });
  return { ...made, strong };
}

describe('history shards stamped by compaction (issue 27 point 4)', () => {
  it('a fresh instance reads the item history shard eventually consistent when its stamp shows the mark, and answers as an uncached read', async () => {
    const clock = new ManualClock(START);
    let strong: ReturnType<typeof counting> | undefined;
    let eventual: ReturnType<typeof counting> | undefined;
    const { base, market: m } = market(clock, (b) => {
      strong = counting(b.latest);
      eventual = counting(b.pages);
      return { latest: strong.store, pages: eventual.store };
    });
    await mergeDays(base, clock, 6, 10);
    const { through } = await compactHistories({ clock, market: base }, M, dayOf(clock.now()));
    expect(through).not.toBeNull();
    const stored = await base.latest.historyShard(M, KEY % 512);
    expect(stored.through).toBe(through);

    const uncached = await answer({ ...readSources({ clock, market: base }), scope: 'uncached' }, clock.now());
    expect(uncached.candles.some(([day]) => day <= (through as number))).toBe(true);
    clearReadCaches();
    strong?.reads.splice(0);
    eventual?.reads.splice(0);
    expect(await answer(await cachedReadSources({ clock, market: m } as unknown as Services, M), clock.now())).toEqual(uncached);
    expect(strong?.reads).toEqual([]);
    expect(eventual?.reads).toEqual(['historyShard']);
  });

  it('a replica holding the shard of the previous compaction is never served: the shard is read again strongly consistent', async () => {
    const clock = new ManualClock(START);
    const { base, market: m, strong } = laggingMarket(clock);
    await mergeDays(base, clock, 6, 10);
    const first = await compactHistories({ clock, market: m }, M, dayOf(clock.now()));
    await mergeDays(base, clock, 4, 40);
    const second = await compactHistories({ clock, market: m }, M, dayOf(clock.now()));
    expect(second.through as number).toBeGreaterThan(first.through as number);
    // The lagging side answers the first compaction's shard beside the second's mark.
    expect((await m.pages.historyShard(M, KEY % 512)).through).toBe(first.through);
    expect(await m.pages.historyMark(M)).toBe(second.through);

    const uncached = await answer({ ...readSources({ clock, market: base }), scope: 'uncached' }, clock.now());
    // The days the second compaction folded in are in the answer, and only the up-to-date shard has them.
    const folded = uncached.candles.filter(([day]) => day > (first.through as number) && day <= (second.through as number));
    expect(folded.length).toBeGreaterThan(0);
    clearReadCaches();
    strong?.reads.splice(0);
    expect(await answer(await cachedReadSources({ clock, market: m } as unknown as Services, M), clock.now())).toEqual(uncached);
    expect(strong?.reads).toEqual(['historyShard']);
    // The shard kept is the up-to-date one: the same answer again reads no history shard.
    strong?.reads.splice(0);
    expect(await answer(await cachedReadSources({ clock, market: m } as unknown as Services, M), clock.now())).toEqual(uncached);
    expect(strong?.reads).toEqual([]);
  });

  it('an uncached read (no read caches: the pages function, a merge under way) given the new mark beside the previous shard takes the days after the shard’s stamp from the day pages', async () => {
    const clock = new ManualClock(START);
    const { base, market: m } = market(clock, (b) => ({ latest: b.latest, pages: laggingReplica(b.pages) }));
    await mergeDays(base, clock, 6, 10);
    const first = await compactHistories({ clock, market: m }, M, dayOf(clock.now()));
    await mergeDays(base, clock, 4, 40);
    const second = await compactHistories({ clock, market: m }, M, dayOf(clock.now()));
    expect((await m.pages.historyShard(M, KEY % 512)).through).toBe(first.through);
    expect(await m.pages.historyMark(M)).toBe(second.through);

    const truth = await answer({ ...readSources({ clock, market: base }), scope: 'truth' }, clock.now());
    expect(truth.candles.filter(([day]) => day > (first.through as number) && day <= (second.through as number)).length).toBeGreaterThan(0);
    clearReadCaches();
    // The mark read with the shard (no mark known), then the same mark reused within 10 minutes.
    expect(await answer(readSources({ clock, market: m }), clock.now())).toEqual(truth);
    expect(await answer(readSources({ clock, market: m }), clock.now())).toEqual(truth);
  });

  it('an uncached read given the first compaction’s mark beside no shard at all (a replica that missed its first write) reads the shard again strongly consistent', async () => {
    const clock = new ManualClock(START);
    const { base, market: m, strong } = laggingMarket(clock);
    await mergeDays(base, clock, 6, 10);
    const { through } = await compactHistories({ clock, market: m }, M, dayOf(clock.now()));
    expect(await m.pages.historyShard(M, KEY % 512)).toEqual({ parts: [], through: null });
    expect(await m.pages.historyMark(M)).toBe(through);

    const truth = await answer({ ...readSources({ clock, market: base }), scope: 'truth' }, clock.now());
    expect(truth.candles.some(([day]) => day <= (through as number))).toBe(true);
    clearReadCaches();
    strong?.reads.splice(0);
    expect(await answer(readSources({ clock, market: m }), clock.now())).toEqual(truth);
    expect(strong?.reads).toEqual(['historyShard']);
  });

  it('retention’s rewrite of history shards (days past 90 dropped) keeps them stamped with the mark', async () => {
    const clock = new ManualClock(START);
    const base = memoryMarket(clock);
    await mergeDays(base, clock, 6, 10);
    const { through } = await compactHistories({ clock, market: base }, M, dayOf(clock.now()));
    const before = await base.latest.historyShard(M, KEY % 512);
    clock.advance(88 * DAY_MS);
    const svc = { clock, market: base, uploads: { quarantinedBefore: async () => [] }, log: () => undefined } as unknown as Services;
    const retained = await retainMarket(svc, M, clock.now());
    expect(retained.historyDaysDropped).toBeGreaterThan(0);
    const after = await base.latest.historyShard(M, KEY % 512);
    expect(after.parts).not.toEqual(before.parts);
    expect(after.through).toBe(through);
  });

  it('a shard stored before stamps (or by a writer that gave none) stays readable: it is read strongly consistent', async () => {
    const clock = new ManualClock(START);
    let strong: ReturnType<typeof counting> | undefined;
    const { base, market: m } = market(clock, (b) => {
      strong = counting(b.latest);
      return { latest: strong.store, pages: b.pages };
    });
    await mergeDays(base, clock, 6, 10);
    await compactHistories({ clock, market: base }, M, dayOf(clock.now()));
    // Written again without a stamp, as every shard was before stamps.
    await base.pages.writeHistories(M, await base.latest.histories(M));
    expect((await base.latest.historyShard(M, KEY % 512)).through).toBeNull();

    const uncached = await answer({ ...readSources({ clock, market: base }), scope: 'uncached' }, clock.now());
    clearReadCaches();
    strong?.reads.splice(0);
    expect(await answer(await cachedReadSources({ clock, market: m } as unknown as Services, M), clock.now())).toEqual(uncached);
    expect(strong?.reads).toEqual(['historyShard']);
  });
});
