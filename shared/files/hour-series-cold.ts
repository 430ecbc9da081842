/**
 * The cold fold of the recent series (issue 15 point 7): a market with no stored series folds every retained
 * hour page at once (240+ whole-market pages). `foldHours` does that key by key, asking each of the pages for
 * the key (millions of lookups); here each key shard is walked once with a cursor per page, since every
 * shard page lists its keys ascending. The result is the series `foldHours(emptySeries(), pages, keepFrom,
 * retainFrom)` answers, point for point (test/unit/files-hour-closes.test.ts checks the bytes).
 */
import type { CandleCloses } from '../store/page-codec';
import type { ColumnHourCloses } from './hour-closes';
import { emptySeries, foldHours, type HourSeries } from './hour-series';

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

/** Sorted union of two ascending key lists (the common case, equal lists, costs one comparison pass). */
function union(a: Float64Array, b: Float64Array): Float64Array {
  if (a.length === b.length) {
    let same = true;
    for (let i = 0; i < a.length && same; i++) same = a[i] === b[i];
    if (same) return a;
  }
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out[n++] = a[i++];
    else if (i >= a.length || b[j] < a[i]) out[n++] = b[j++];
    else {
      out[n++] = a[i++];
      j++;
    }
  }
  return out.subarray(0, n);
}

/** One key shard's points over the pages (ascending hour), under foldHours' keep rule. */
function foldShard(runs: ReadonlyArray<readonly [number, CandleCloses]>, keepFrom: number, retainFrom: number): ShardPoints {
  const nRuns = runs.length;
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
    if (r > 0) keys = union(keys, run.keys);
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

/**
 * One key shard's points over its hour pages (`runs`: that shard's columns per hour, ascending by hour, every
 * run of the same shard count and residue), under foldHours' keep rule. Runs without keys are skipped.
 */
export function foldShardRuns(runs: ReadonlyArray<readonly [number, CandleCloses]>, keepFrom: number, retainFrom: number): ShardPoints | null {
  const kept = runs.filter(([, run]) => run.keys.length > 0);
  return kept.length === 0 ? null : foldShard(kept, keepFrom, retainFrom);
}

/** The series of folded key shards (keys ascending across them), every hour through `hourThrough` folded in. */
export function joinShards(folded: ReadonlyArray<ShardPoints | null>, hourThrough: number | null): HourSeries {
  const shards = folded.filter((s): s is ShardPoints => s !== null);
  // Keys ascending across shards: each shard's keys are ascending, so order (key, shard, index) triples.
  const order: Array<[number, number, number]> = [];
  let points = 0;
  shards.forEach((s, si) => {
    for (let i = 0; i < s.nKeys; i++) order.push([s.keys[i], si, i]);
    points += s.n;
  });
  order.sort((a, b) => a[0] - b[0]);
  const keys = new Float64Array(order.length);
  const start = new Uint32Array(order.length + 1);
  const hour = new Int32Array(points);
  const close = new Float64Array(points);
  const quantity = new Float64Array(points);
  let n = 0;
  order.forEach(([key, si, i], k) => {
    const s = shards[si];
    keys[k] = key;
    start[k] = n;
    const from = s.start[i];
    const to = s.start[i + 1];
    hour.set(s.hour.subarray(from, to), n);
    close.set(s.close.subarray(from, to), n);
    quantity.set(s.quantity.subarray(from, to), n);
    n += to - from;
  });
  start[order.length] = n;
  return { ...emptySeries(), hourThrough, keys, start, hour, close, quantity };
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
