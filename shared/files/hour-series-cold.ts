/**
 * The cold fold of the recent series (issue 15 point 7): a market with no stored series folds every retained
 * hour page at once (240+ whole-market pages). `foldHours` does that key by key, asking each of the pages for
 * the key (millions of lookups); here each key shard is walked once with a cursor per page, since every
 * shard page lists its keys ascending. A shard whose pages all hold the same keys (the usual case) is not
 * walked at all: the store decodes it as one key-major block (page-closes.ts: ShardBlock), and each key's
 * kept points are copied from it in one run into the joined series. The result is the series
 * `foldHours(emptySeries(), pages, keepFrom, retainFrom)` answers, point for point
 * (test/unit/files-snapshot-cold-read.test.ts checks the bytes, with and without keys missing from pages).
 */
import { unionSorted } from '../domain/sorted-keys';
import type { CandleCloses, ShardBlock } from '../page-format/page-closes';
import type { ColumnHourCloses } from './hour-closes';
import { emptySeries, foldHours, type HourSeries } from './hour-series';

/** One key shard's points, key by key (its pages do not all hold the same keys). */
export interface ShardPoints {
  keys: Float64Array;
  /** Key i's points are `start[i] … start[i + 1] - 1`. */
  start: Uint32Array;
  hour: Int32Array;
  close: Float64Array;
  quantity: Float64Array;
  /** Keys and points written. */
  nKeys: number;
  n: number;
}

/**
 * One key shard whose pages all hold the same keys (the common case: a market's items change slowly): every
 * key has one point from each kept hour. Kept as the shard's key-major block (ShardBlock), so the join copies
 * each key's points in one run, straight into the series.
 */
export interface UniformShard {
  keys: Float64Array;
  /** The kept hours, ascending. */
  hours: Int32Array;
  /** Key i's points are `close[i * stride + from]` … (`hours.length` of them), likewise `quantity`. */
  close: Float64Array;
  quantity: Float64Array;
  stride: number;
  from: number;
}

type Folded = ShardPoints | UniformShard;
const isUniform = (s: Folded): s is UniformShard => 'hours' in s;

/** One key shard's points over the pages (ascending hour), under foldHours' keep rule. */
function foldShard(runs: ReadonlyArray<readonly [number, CandleCloses]>, keepFrom: number, retainFrom: number): Folded | null {
  const nRuns = runs.length;
  if (runs.every(([, run]) => sameKeys(run.keys, runs[0][1].keys))) return blockShard(blockOf(runs), keepFrom, retainFrom);
  // The runs' columns in flat arrays: the loop below visits every key of every run (millions of steps).
  const hours = new Int32Array(nRuns);
  const runKeys: Float64Array[] = new Array(nRuns);
  const runClose: Float64Array[] = new Array(nRuns);
  const runQuantity: Float64Array[] = new Array(nRuns);
  let keys = runs[0][1].keys;
  let capacity = 0;
  for (let r = 0; r < nRuns; r++) {
    const [h, run] = runs[r];
    hours[r] = h;
    runKeys[r] = run.keys;
    runClose[r] = run.close;
    runQuantity[r] = run.quantity;
    if (r > 0) keys = unionSorted(keys, run.keys);
    capacity += run.keys.length;
  }
  const cursor = new Int32Array(nRuns);
  const outKeys = new Float64Array(keys.length);
  const start = new Uint32Array(keys.length + 1);
  const hour = new Int32Array(capacity);
  const close = new Float64Array(capacity);
  const quantity = new Float64Array(capacity);
  let n = 0;
  let nKeys = 0;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    const from = n;
    // The newest point before keepFrom is kept while it is retained (hours ascend, so the last one seen).
    let carry = -1;
    let carryAt = 0;
    for (let r = 0; r < nRuns; r++) {
      const c = cursor[r];
      const rk = runKeys[r];
      if (c >= rk.length || rk[c] !== key) continue;
      cursor[r] = c + 1;
      const h = hours[r];
      if (h < keepFrom) {
        carry = r;
        carryAt = c;
        continue;
      }
      if (carry >= 0) {
        if (hours[carry] >= retainFrom) {
          hour[n] = hours[carry];
          close[n] = runClose[carry][carryAt];
          quantity[n] = runQuantity[carry][carryAt];
          n++;
        }
        carry = -1;
      }
      hour[n] = h;
      close[n] = runClose[r][c];
      quantity[n] = runQuantity[r][c];
      n++;
    }
    if (carry >= 0 && hours[carry] >= retainFrom) {
      hour[n] = hours[carry];
      close[n] = runClose[carry][carryAt];
      quantity[n] = runQuantity[carry][carryAt];
      n++;
    }
    if (n === from) continue;
    outKeys[nKeys] = key;
    start[nKeys] = from;
    nKeys++;
  }
  start[nKeys] = n;
  return { keys: outKeys, start, hour, close, quantity, nKeys, n };
}

function sameKeys(a: Float64Array, b: Float64Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * foldShard's keep rule when every page holds every key: each key gets the same hours' points, the newest
 * hour before keepFrom (when retained) and every hour from keepFrom on. Hours ascend, so that is a suffix.
 */
export function blockShard(block: ShardBlock, keepFrom: number, retainFrom: number): UniformShard | null {
  const periods = block.periods;
  let from = 0;
  while (from < periods.length && periods[from] < keepFrom) from++;
  if (from > 0 && periods[from - 1] >= retainFrom) from--;
  if (from === periods.length || block.keys.length === 0) return null;
  return { keys: block.keys, hours: periods.subarray(from), close: block.close, quantity: block.quantity, stride: periods.length, from };
}

/** Runs that all list the same keys (ascending by hour) as one key-major block. */
function blockOf(runs: ReadonlyArray<readonly [number, CandleCloses]>): ShardBlock {
  const cols = runs.length;
  const { shards, residue, keys } = runs[0][1];
  const close = new Float64Array(keys.length * cols);
  const quantity = new Float64Array(keys.length * cols);
  runs.forEach(([, run], j) => {
    for (let i = 0; i < keys.length; i++) {
      close[i * cols + j] = run.close[i];
      quantity[i * cols + j] = run.quantity[i];
    }
  });
  return { shards, residue, keys, periods: Int32Array.from(runs, ([h]) => h), close, quantity };
}

/**
 * One key shard's points over its hour pages (`runs`: that shard's columns per hour, ascending by hour, every
 * run of the same shard count and residue), under foldHours' keep rule. Runs without keys are skipped.
 */
export function foldShardRuns(runs: ReadonlyArray<readonly [number, CandleCloses]>, keepFrom: number, retainFrom: number): Folded | null {
  const kept = runs.filter(([, run]) => run.keys.length > 0);
  return kept.length === 0 ? null : foldShard(kept, keepFrom, retainFrom);
}

/** A uniform shard's points into the series, key i's from `pos[i]` on (each key's run copied as it lies in the block). */
function copyUniform(s: UniformShard, pos: Uint32Array, hour: Int32Array, close: Float64Array, quantity: Float64Array): void {
  const cols = s.hours.length;
  for (let i = 0; i < pos.length; i++) {
    const p = pos[i];
    const from = i * s.stride + s.from;
    hour.set(s.hours, p);
    for (let j = 0; j < cols; j++) {
      close[p + j] = s.close[from + j];
      quantity[p + j] = s.quantity[from + j];
    }
  }
}

/** A shard's points into the series, key i's from `pos[i]` on. */
function copyPoints(s: ShardPoints, pos: Uint32Array, hour: Int32Array, close: Float64Array, quantity: Float64Array): void {
  for (let i = 0; i < pos.length; i++) {
    const to = s.start[i + 1];
    for (let x = s.start[i], p = pos[i]; x < to; x++, p++) {
      hour[p] = s.hour[x];
      close[p] = s.close[x];
      quantity[p] = s.quantity[x];
    }
  }
}

/** The series of folded key shards (keys ascending across them), every hour through `hourThrough` folded in. */
export function joinShards(folded: ReadonlyArray<Folded | null>, hourThrough: number | null): HourSeries {
  const shards = folded.filter((s): s is Folded => s !== null);
  const sizes = shards.map((s) => (isUniform(s) ? s.keys.length : s.nKeys));
  const nKeys = sizes.reduce((a, b) => a + b, 0);
  // Keys ascending across shards (each shard's keys ascend; no key is in two shards): sort (shard, index) pairs by key.
  const keys = new Float64Array(nKeys);
  const fromShard = new Uint32Array(nKeys);
  const fromIndex = new Uint32Array(nKeys);
  let k = 0;
  shards.forEach((s, si) => {
    for (let i = 0; i < sizes[si]; i++, k++) {
      keys[k] = s.keys[i];
      fromShard[k] = si;
      fromIndex[k] = i;
    }
  });
  const order = Uint32Array.from({ length: nKeys }, (_, j) => j).sort((a, b) => keys[a] - keys[b]);
  const sortedKeys = Float64Array.from(order, (j) => keys[j]);
  const start = new Uint32Array(nKeys + 1);
  // Where each shard's key i lands: its first point's index in the series.
  const at = shards.map((_, si) => new Uint32Array(sizes[si]));
  let n = 0;
  for (let g = 0; g < nKeys; g++) {
    const si = fromShard[order[g]];
    const i = fromIndex[order[g]];
    const s = shards[si];
    start[g] = n;
    at[si][i] = n;
    n += isUniform(s) ? s.hours.length : s.start[i + 1] - s.start[i];
  }
  start[nKeys] = n;
  const hour = new Int32Array(n);
  const close = new Float64Array(n);
  const quantity = new Float64Array(n);
  for (let si = 0; si < shards.length; si++) {
    const s = shards[si];
    if (isUniform(s)) copyUniform(s, at[si], hour, close, quantity);
    else copyPoints(s, at[si], hour, close, quantity);
  }
  return { ...emptySeries(), hourThrough, keys: sortedKeys, start, hour, close, quantity };
}

/**
 * `foldHours(emptySeries(), pages, keepFrom, retainFrom)` for pages read as columns. Pages of mixed shard
 * counts (a layout change) cannot be walked shard by shard: they go through foldHours itself.
 */
export function foldHoursCold(pages: ReadonlyArray<readonly [hour: number, closes: ColumnHourCloses]>, keepFrom: number, retainFrom: number): HourSeries {
  const ordered = [...pages].sort((a, b) => a[0] - b[0]);
  const counts = new Set(ordered.flatMap(([, p]) => p.runs.map((r) => r.shards)));
  const hours = new Set(ordered.map(([h]) => h));
  if (counts.size > 1 || hours.size !== ordered.length) return foldHours(emptySeries(), pages, keepFrom, retainFrom);
  const byShard = new Map<number, Array<readonly [number, CandleCloses]>>();
  for (const [h, page] of ordered) {
    for (const run of page.runs) {
      const list = byShard.get(run.residue) ?? [];
      list.push([h, run]);
      byShard.set(run.residue, list);
    }
  }
  const shards = [...byShard.values()].map((runs) => foldShardRuns(runs, keepFrom, retainFrom));
  return joinShards(shards, ordered.length > 0 ? ordered[ordered.length - 1][0] : null);
}
