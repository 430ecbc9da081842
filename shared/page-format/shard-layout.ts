/**
 * How market pages are split into key shards (DESIGN: Storage of market data), in one place for the store,
 * retention, the in-memory fake and the bench. Pages every merge rewrites (rows, the scan's minute/hour/day
 * candles, the day's volume) are coarse, so a complete book costs few write units; a finished day is copied
 * once into fine history shards, so one item's 90 days are a small read. Counts were chosen by
 * `npx tsx test/bench/engine.ts`. The mapping is part of the stored format: never change it in place.
 */

/** Shards of a market's rows. */
export const ROW_SHARDS = 16;
/** Shards of every candle page (m1, h1, d1) and volume page: one shard read serves an item's reads of them all. */
export const PAGE_SHARDS = 16;
/** Shards of the compacted day history. */
export const HISTORY_SHARDS = 512;

/** Key shards per page type. */
export const SHARD_LAYOUT = { rows: ROW_SHARDS, m1: PAGE_SHARDS, h1: PAGE_SHARDS, d1: PAGE_SHARDS, volume: PAGE_SHARDS, history: HISTORY_SHARDS } as const;

/** Every candle or volume page shard. */
export const ALL_PAGE_SHARDS: readonly number[] = Array.from({ length: PAGE_SHARDS }, (_, s) => s);

/** Shard counts are powers of two in 1..65536 (the codec divides a shard's residue out of its keys). */
export function checkShards(shards: number): void {
  if (!Number.isInteger(shards) || shards < 1 || shards > 65536 || (shards & (shards - 1)) !== 0) {
    throw new RangeError('shards must be a power of two in 1..65536');
  }
}

/**
 * The key shard of an item key: `key mod shards`. Because 2^31 is a multiple of every shard count, all variants
 * of one item id share a shard, and within a shard keys differ by multiples of `shards`.
 */
export function shardOf(key: number, shards: number): number {
  return key % shards;
}

/** Splits a keyed map into `shards` maps by `shardOf`, index = shard. */
export function splitShards<T>(map: ReadonlyMap<number, T>, shards: number): Map<number, T>[] {
  checkShards(shards);
  const out: Map<number, T>[] = Array.from({ length: shards }, () => new Map<number, T>());
  for (const [key, value] of map) out[key % shards].set(key, value);
  return out;
}

/** The shards a set of changed keys touches, ascending: the pages a merge must rewrite. */
export function shardsTouched(keys: Iterable<number>, shards: number): number[] {
  checkShards(shards);
  const seen = new Set<number>();
  // A merge's changed keys touch every shard within the first few dozen: the rest need not be looked at.
  let valid = 0;
  for (const key of keys) {
    const shard = key % shards;
    if (seen.has(shard)) continue;
    seen.add(shard);
    if (Number.isInteger(shard) && shard >= 0 && ++valid === shards) break;
  }
  return [...seen].sort((a, b) => a - b);
}
