/**
 * Hour pages as the recent series reads them: key → `[close, quantity]`, straight from the stored shard pages'
 * columns. A cold series (a market with no stored series) reads every retained hour page of a whole market
 * (20000 keys × 240 hours and more): decoding each into a Map of Candle objects and then into a Map of
 * pairs made millions of short-lived objects, and most of the cold run's time (issue 15 point 7). This view
 * keeps each shard's three columns as they were decoded and answers `get` by a binary search in the key's
 * shard, so `foldHours` folds exactly the same values as before.
 */

import type { CandleCloses } from '../page-format/page-closes';
import type { MarketPages } from '../ports/market';
import type { HourCloses } from './hour-series';

/** One hour page over its decoded shard columns. Read-only; `get` allocates the pair it answers. */
export class ColumnHourCloses implements HourCloses {
  readonly size: number;
  /** shard count → residue → that shard's columns (one shard count in practice). */
  private readonly shards = new Map<number, Map<number, CandleCloses>>();

  constructor(
    /** The shard pages' columns, as read. */
    readonly runs: readonly CandleCloses[],
  ) {
    let size = 0;
    for (const run of runs) {
      // A shard page without keys (written empty, residue 0) holds nothing to look up.
      if (run.keys.length === 0) continue;
      let byResidue = this.shards.get(run.shards);
      if (!byResidue) {
        byResidue = new Map();
        this.shards.set(run.shards, byResidue);
      }
      // Two items of one shard would mean a corrupt partition (the old Candle-map path let the later one win):
      // refused, so the run fails loudly rather than folding half of it.
      const had = byResidue.get(run.residue);
      if (had) throw new RangeError(`hour page: two items hold shard ${run.residue} of ${run.shards}`);
      byResidue.set(run.residue, run);
      size += run.keys.length;
    }
    this.size = size;
  }

  get(key: number): readonly [number, number] | undefined {
    for (const [shards, byResidue] of this.shards) {
      const run = byResidue.get(key % shards);
      if (!run) continue;
      const i = indexOf(run.keys, key);
      if (i >= 0) return [run.close[i], run.quantity[i]];
    }
    return undefined;
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  *keys(): MapIterator<number> {
    for (const run of this.runs) yield* run.keys;
  }

  *values(): MapIterator<readonly [number, number]> {
    for (const run of this.runs) for (let i = 0; i < run.keys.length; i++) yield [run.close[i], run.quantity[i]] as const;
  }

  *entries(): MapIterator<[number, readonly [number, number]]> {
    for (const run of this.runs) for (let i = 0; i < run.keys.length; i++) yield [run.keys[i], [run.close[i], run.quantity[i]] as const];
  }

  [Symbol.iterator](): MapIterator<[number, readonly [number, number]]> {
    return this.entries();
  }

  forEach(fn: (value: readonly [number, number], key: number, map: ReadonlyMap<number, readonly [number, number]>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

function indexOf(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = keys[mid];
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The closes of one market's hour page (every shard), read with one Query. */
export async function readHourCloses(store: MarketPages, market: string, hour: number): Promise<ColumnHourCloses> {
  return new ColumnHourCloses(await store.candleCloses(market, 'h1', hour));
}
