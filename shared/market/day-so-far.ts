/**
 * Spec Freshness: "cut's own day is rebuilt from its hour candles before cut". Folding up to 23 hour pages on
 * every hourly read would cost one read per hour and shard, so the fold is kept per (market, cut hour, key
 * shard) in the read cache and grown from the previous hour's fold: hour H's fold = hour H−1's fold + hour
 * H−1's page. A fold is only trusted while no merge after it carried a book read before its cut (a late
 * upload, up to 24 h behind, can still change earlier hours); otherwise it is rebuilt from the hour pages.
 */
import { dayOf, HOUR_MS, hourOf } from '../clock';
import type { CandlePage } from '../domain/candles';
import { ALL_PAGE_SHARDS, PAGE_SHARDS, shardOf } from '../page-format/shard-layout';
import type { DayFold, MergeRecord } from '../ports/market';
import type { ReadSources } from './sources';
import { foldPageInto } from './view-rules';

/** Every page shard: whole-market reads. */
export const ALL_SHARDS = ALL_PAGE_SHARDS;

/** The page shard of an item key. */
export const pageShardOf = (key: number): number => shardOf(key, PAGE_SHARDS);

/**
 * The day so far before `cut` (a whole hour): every item's hour candles of cut's day before cut, folded
 * into one candle, for the items of `shards`. Empty in the day's first hour.
 */
export async function daySoFar(src: ReadSources, market: string, cut: number, shards: readonly number[] = ALL_SHARDS): Promise<CandlePage> {
  const hour = hourOf(cut);
  if (hour === dayOf(cut) * 24 || shards.length === 0) return new Map();
  const stored = await src.store.dayFolds(market, hour, shards, src.clock.now());
  const trusted = await trustedFolds(src, market, stored, cut);
  const missing = shards.filter((s) => !trusted.has(s));
  const built = missing.length > 0 ? await buildFolds(src, market, hour, missing) : new Map<number, CandlePage>();
  const out: CandlePage = new Map();
  for (const pages of [trusted, built]) for (const page of pages.values()) for (const [k, c] of page) out.set(k, c);
  return out;
}

/** Folds of `hour` for `shards` built from the hour pages (and the previous hour's fold when trusted), then stored. */
async function buildFolds(src: ReadSources, market: string, hour: number, shards: readonly number[]): Promise<Map<number, CandlePage>> {
  const firstHour = dayOf(hour * HOUR_MS) * 24;
  // Read before any page: a merge landing meanwhile has a higher seq and is judged on the next read.
  const seq = (await src.store.meta(market)).seq;
  const previous =
    hour - 1 > firstHour
      ? await trustedFolds(src, market, await src.store.dayFolds(market, hour - 1, shards, src.clock.now()), (hour - 1) * HOUR_MS)
      : new Map<number, CandlePage>();
  const wanted: Array<{ period: number; shard: number }> = [];
  for (const shard of shards) {
    for (let h = previous.has(shard) ? hour - 1 : firstHour; h < hour; h++) wanted.push({ period: h, shard });
  }
  const byShard = new Map<number, Array<[number, CandlePage]>>();
  for (const { period, shard, page } of await src.store.candleShards(market, 'h1', wanted)) {
    const list = byShard.get(shard) ?? [];
    list.push([period, page]);
    byShard.set(shard, list);
  }
  const out = new Map<number, CandlePage>();
  for (const s of shards) {
    // A copy: the previous fold may be a cached page other readers hold.
    const page: CandlePage = new Map(previous.get(s));
    for (const [, hourPage] of (byShard.get(s) ?? []).sort((a, b) => a[0] - b[0])) foldPageInto(page, hourPage);
    out.set(s, page);
  }
  // A reader without write access (the pages function) does not try: in AWS the write is an AccessDenied.
  if (src.readOnly) return out;
  try {
    await src.store.writeDayFolds(market, hour, out, seq);
  } catch {
    // The fold is only a cache: a failed write just leaves the next reader to fold again.
  }
  return out;
}

/** The stored folds that no later merge of a book read before `cut` has made stale. */
async function trustedFolds(src: ReadSources, market: string, stored: Map<number, DayFold>, cut: number): Promise<Map<number, CandlePage>> {
  const out = new Map<number, CandlePage>();
  if (stored.size === 0) return out;
  const oldest = Math.min(...[...stored.values()].map((f) => f.seq));
  const later = await src.merges.after(market, oldest, src.clock.now());
  for (const [s, fold] of stored) if (!later.some((r) => r.seq > fold.seq && changesBefore(r, cut))) out.set(s, fold.page);
  return out;
}

/** Whether a merge may have changed hour candles before `cut`; without the book's own `at` assume it did. */
const changesBefore = (r: MergeRecord, cut: number): boolean => r.bookAt === undefined || r.bookAt < cut;
