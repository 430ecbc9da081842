/**
 * What the recent-changes file reads, kept folded between runs. The file needs every item's finished hour
 * closes over the 168-hour index window, the newest before it (the 72-hour carry, `ch7d`), its newest 7 day
 * closes and 7 days of sold volume; reading every retained whole-market hour page every hour costs seconds,
 * so the snapshot job keeps them in one compact series and folds in only the periods since its last run:
 *
 * - hour points `[hour, close, quantity]` per key for the hours the job keeps whole (snapshot-files.ts:
 *   SERIES_HOURS, H-168 … H-1), plus each key's newest older point still inside hour-candle retention (it
 *   answers `ch7d` and every carry before the window exactly), in flat typed arrays (20000 keys × 168 hours
 *   are millions of points: one small array each would cost more than the file takes to build);
 * - `days`: each key's newest 7 day closes; `sold`: `[day, sold]` per key for the 7 days before the current one.
 *
 * Pure: folding and the binary form.
 */
import { Reader, Writer } from '../page-format/page-columns';
import { getDelta, getVarint, putDelta, putVarint, varintEnd } from '../page-format/varint';
import type { DayClosePoint } from './recent-changes';

export interface HourSeries {
  /** Every hour up to and including this one is folded in (null: nothing yet). */
  hourThrough: number | null;
  /** Keys ascending; key i's points are `start[i] … start[i + 1] - 1`, ascending by hour. */
  keys: Float64Array;
  start: Uint32Array;
  hour: Int32Array;
  close: Float64Array;
  quantity: Float64Array;
  /** Every day up to and including this one is folded in (null: nothing yet). */
  dayThrough: number | null;
  days: Map<number, DayClosePoint[]>;
  sold: Map<number, (readonly [day: number, sold: number])[]>;
}

/** An hour page: key → `[close, quantity]`. */
export type HourCloses = ReadonlyMap<number, readonly [close: number, quantity: number]>;

/** Day closes kept per key (spec: `fair` is the lower median of the newest 7). */
export const DAY_CLOSES_KEPT = 7;
const FORMAT = 3;

/** A series holding nothing yet (a cold start folds every retained period in). */
export const emptySeries = (): HourSeries => ({
  hourThrough: null,
  keys: new Float64Array(0),
  start: new Uint32Array(1),
  hour: new Int32Array(0),
  close: new Float64Array(0),
  quantity: new Float64Array(0),
  dayThrough: null,
  days: new Map(),
  sold: new Map(),
});

/** The index of `key` in the series, or -1. */
export function keyIndex(s: HourSeries, key: number): number {
  let lo = 0;
  let hi = s.keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = s.keys[mid];
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The point index of key `i`'s newest point whose hour is at most `hour`, or -1. */
export function newestAtOrBefore(s: HourSeries, i: number, hour: number): number {
  let lo = s.start[i];
  let hi = s.start[i + 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.hour[mid] <= hour) lo = mid + 1;
    else hi = mid;
  }
  return lo > s.start[i] ? lo - 1 : -1;
}

/**
 * Folds hour pages in (a page replaces what the series held for its hour), keeping points of hours
 * `keepFrom` … and, per key, the newest older point whose hour is at least `retainFrom`. Answers a new series.
 */
export function foldHours(s: HourSeries, pages: ReadonlyArray<readonly [hour: number, closes: HourCloses]>, keepFrom: number, retainFrom: number): HourSeries {
  const ordered = [...pages].sort((a, b) => a[0] - b[0]);
  const replaced = new Set(ordered.map(([h]) => h));
  const firstReplaced = ordered.length > 0 ? ordered[0][0] : 2 ** 31;
  const keySet = new Set<number>(s.keys);
  for (const [, page] of ordered) for (const k of page.keys()) keySet.add(k);
  const keys = Float64Array.from(keySet).sort();
  let capacity = s.hour.length;
  for (const [, page] of ordered) capacity += page.size;
  const out = { hour: new Int32Array(capacity), close: new Float64Array(capacity), quantity: new Float64Array(capacity), n: 0 };
  const start = new Uint32Array(keys.length + 1);
  const outKeys = new Float64Array(keys.length);
  // One key's page points, ascending by hour (reused buffers).
  const ph = new Float64Array(ordered.length);
  const pc = new Float64Array(ordered.length);
  const pq = new Float64Array(ordered.length);
  const carry = { set: false, h: 0, c: 0, q: 0 };
  const emit = (h: number, c: number, q: number) => {
    if (h < keepFrom) {
      carry.set = true;
      carry.h = h;
      carry.c = c;
      carry.q = q;
      return;
    }
    flush();
    out.hour[out.n] = h;
    out.close[out.n] = c;
    out.quantity[out.n] = q;
    out.n++;
  };
  // The newest point before keepFrom is kept while it is retained.
  const flush = () => {
    if (!carry.set) return;
    carry.set = false;
    if (carry.h < retainFrom) return;
    out.hour[out.n] = carry.h;
    out.close[out.n] = carry.c;
    out.quantity[out.n] = carry.q;
    out.n++;
  };
  let kept = 0;
  let old = 0;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    while (old < s.keys.length && s.keys[old] < key) old++;
    const has = old < s.keys.length && s.keys[old] === key;
    const oStart = has ? s.start[old] : 0;
    const oEnd = has ? s.start[old + 1] : 0;
    let pn = 0;
    for (const [h, page] of ordered) {
      const v = page.get(key);
      if (v === undefined) continue;
      ph[pn] = h;
      pc[pn] = v[0];
      pq[pn] = v[1];
      pn++;
    }
    const from = out.n;
    // Old points before the first folded hour are untouched: the newest one before keepFrom, then a bulk copy.
    const tail = lowerBound(s.hour, oStart, oEnd, firstReplaced);
    const head = lowerBound(s.hour, oStart, tail, keepFrom);
    if (head > oStart) emit(s.hour[head - 1], s.close[head - 1], s.quantity[head - 1]);
    let p = 0;
    while (p < pn && ph[p] < keepFrom) {
      emit(ph[p], pc[p], pq[p]);
      p++;
    }
    if (head < tail) {
      flush();
      out.hour.set(s.hour.subarray(head, tail), out.n);
      out.close.set(s.close.subarray(head, tail), out.n);
      out.quantity.set(s.quantity.subarray(head, tail), out.n);
      out.n += tail - head;
    }
    // The rest: old points of folded hours give way to the pages.
    let o = tail;
    while (o < oEnd || p < pn) {
      if (o < oEnd && replaced.has(s.hour[o])) {
        o++;
      } else if (p >= pn || (o < oEnd && s.hour[o] < ph[p])) {
        emit(s.hour[o], s.close[o], s.quantity[o]);
        o++;
      } else {
        emit(ph[p], pc[p], pq[p]);
        p++;
      }
    }
    flush();
    if (out.n === from) continue;
    outKeys[kept] = key;
    start[kept] = from;
    kept++;
  }
  start[kept] = out.n;
  const newest = ordered.reduce((m, [h]) => Math.max(m, h), s.hourThrough ?? Number.NEGATIVE_INFINITY);
  return {
    ...s,
    hourThrough: Number.isFinite(newest) ? newest : null,
    // Views, not copies: a copy of millions of points costs more than the slack it frees.
    keys: outKeys.subarray(0, kept),
    start: start.subarray(0, kept + 1),
    hour: out.hour.subarray(0, out.n),
    close: out.close.subarray(0, out.n),
    quantity: out.quantity.subarray(0, out.n),
  };
}

/** The first index in `from … to - 1` whose hour is at least `hour` (`to` when none). */
function lowerBound(hours: Int32Array, from: number, to: number, hour: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (hours[mid] < hour) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Puts a point into a list ascending by its first field, replacing one of the same period. */
function place<P extends readonly [number, number]>(map: Map<number, P[]>, key: number, point: P): void {
  const list = map.get(key);
  if (!list) {
    map.set(key, [point]);
    return;
  }
  let i = list.length;
  while (i > 0 && list[i - 1][0] > point[0]) i--;
  if (i > 0 && list[i - 1][0] === point[0]) list[i - 1] = point;
  else list.splice(i, 0, point);
}

/** A refolded day: keys its page no longer has lose their point of it. */
function dropMissing<P extends readonly [number, number]>(map: Map<number, P[]>, day: number, page: ReadonlyMap<number, unknown>): void {
  for (const [key, list] of map) {
    if (page.has(key) || list[list.length - 1][0] < day) continue;
    const kept = list.filter((p) => p[0] !== day);
    if (kept.length === 0) map.delete(key);
    else map.set(key, kept);
  }
}

/** Folds day pages in (`closes`: key → close; `sold`: key → sold); keeps each key's newest 7 day closes and sold volume of days `soldFrom` …. */
export function foldDays(
  s: HourSeries,
  pages: ReadonlyArray<readonly [day: number, closes: ReadonlyMap<number, number>, sold: ReadonlyMap<number, number>]>,
  soldFrom: number,
): HourSeries {
  for (const [day, closes, sold] of [...pages].sort((a, b) => a[0] - b[0])) {
    if (s.dayThrough !== null && day <= s.dayThrough) {
      dropMissing(s.days, day, closes);
      dropMissing(s.sold, day, sold);
    }
    for (const [key, close] of closes) place(s.days, key, [day, close] as DayClosePoint);
    for (const [key, n] of sold) place(s.sold, key, [day, n] as const);
    s.dayThrough = Math.max(s.dayThrough ?? day, day);
  }
  for (const [key, list] of s.days) if (list.length > DAY_CLOSES_KEPT) s.days.set(key, list.slice(-DAY_CLOSES_KEPT));
  for (const [key, list] of s.sold) {
    const kept = list.filter((p) => p[0] >= soldFrom);
    if (kept.length === 0) s.sold.delete(key);
    else if (kept.length !== list.length) s.sold.set(key, kept);
  }
  return s;
}

const optional = (v: number | null): number => (v === null ? 0 : v + 1);
const fromOptional = (v: number): number | null => (v === 0 ? null : v - 1);

function writePairs(w: Writer, map: ReadonlyMap<number, ReadonlyArray<readonly [number, number]>>): void {
  const keys = [...map.keys()].sort((a, b) => a - b);
  w.uvar(keys.length);
  let prevKey = 0;
  for (const key of keys) {
    const list = map.get(key) as ReadonlyArray<readonly [number, number]>;
    w.uvar(key - prevKey);
    prevKey = key;
    w.uvar(list.length);
    for (const [a, b] of list) {
      w.uvar(a);
      w.delta(b);
    }
  }
}

function readPairs<P extends readonly [number, number]>(r: Reader): Map<number, P[]> {
  const out = new Map<number, P[]>();
  let key = 0;
  for (let i = r.uvar(); i > 0; i--) {
    key += r.uvar();
    const list: P[] = [];
    for (let j = r.uvar(); j > 0; j--) list.push([r.uvar(), r.delta()] as unknown as P);
    out.set(key, list);
  }
  return out;
}

/** Bytes a point can take at most: three varints of up to 2^56 (zigzag of a difference of safe integers). */
const POINT_BYTES = 24;

/**
 * Binary form: keys as deltas; per key its points as hour, close and quantity deltas (varints). The points
 * are millions: they are written in one tight loop per key, not value by value through the Writer.
 */
export function encodeSeries(s: HourSeries): Uint8Array {
  const w = new Writer(64);
  w.u8(FORMAT);
  w.uvar(optional(s.hourThrough));
  w.uvar(optional(s.dayThrough));
  w.uvar(s.keys.length);
  w.uvar(s.hour.length);
  const head = w.bytes();
  let buf = new Uint8Array(head.length + s.keys.length * 16 + s.hour.length * 6 + 1024);
  buf.set(head);
  let pos = head.length;
  let prevKey = 0;
  for (let i = 0; i < s.keys.length; i++) {
    const from = s.start[i];
    const to = s.start[i + 1];
    const need = pos + 16 + (to - from) * POINT_BYTES;
    if (need > buf.length) {
      const next = new Uint8Array(Math.max(buf.length * 2, need));
      next.set(buf.subarray(0, pos));
      buf = next;
    }
    pos = putVarint(buf, pos, checked(s.keys[i] - prevKey));
    prevKey = s.keys[i];
    pos = putVarint(buf, pos, to - from);
    let h = 0;
    let c = 0;
    let q = 0;
    for (let j = from; j < to; j++) {
      const hj = s.hour[j];
      const cj = s.close[j];
      const qj = s.quantity[j];
      pos = putVarint(buf, pos, checked(hj - h));
      pos = putDelta(buf, pos, checked(cj), c);
      pos = putDelta(buf, pos, checked(qj), q);
      h = hj;
      c = cj;
      q = qj;
    }
  }
  const tail = new Writer(1024);
  writePairs(tail, s.days);
  writePairs(tail, s.sold);
  const rest = tail.bytes();
  const out = new Uint8Array(pos + rest.length);
  out.set(buf.subarray(0, pos));
  out.set(rest, pos);
  return out;
}

/** Hour steps and key steps are unsigned, closes and quantities 0..2^53-1 (their deltas are exact either way). */
function checked(v: number): number {
  if (!(v >= 0) || v > Number.MAX_SAFE_INTEGER || v !== Math.floor(v)) throw new RangeError(`not an unsigned integer: ${v}`);
  return v;
}

/** Reads the binary form back. */
export function decodeSeries(buf: Uint8Array): HourSeries {
  const r = new Reader(buf);
  if (r.u8() !== FORMAT) throw new RangeError('unknown hour series format');
  const hourThrough = fromOptional(r.uvar());
  const dayThrough = fromOptional(r.uvar());
  const nKeys = r.uvar();
  const nPoints = r.uvar();
  if (nKeys > r.remaining() || nPoints > r.remaining()) throw new RangeError('corrupt hour series');
  const keys = new Float64Array(nKeys);
  const start = new Uint32Array(nKeys + 1);
  const hour = new Int32Array(nPoints);
  const close = new Float64Array(nPoints);
  const quantity = new Float64Array(nPoints);
  let pos = r.offset;
  let key = 0;
  let n = 0;
  for (let i = 0; i < nKeys; i++) {
    key += getVarint(buf, pos);
    const count = getVarint(buf, varintEnd);
    pos = varintEnd;
    if (n + count > nPoints) throw new RangeError('corrupt hour series: point count');
    keys[i] = key;
    start[i] = n;
    let h = 0;
    let c = 0;
    let q = 0;
    for (let j = count; j > 0; j--) {
      h += getVarint(buf, pos);
      c = getDelta(buf, varintEnd, c);
      q = getDelta(buf, varintEnd, q);
      pos = varintEnd;
      hour[n] = h;
      close[n] = c;
      quantity[n] = q;
      n++;
    }
  }
  start[nKeys] = n;
  if (n !== nPoints) throw new RangeError('corrupt hour series: point count');
  const rest = new Reader(buf.subarray(pos));
  const days = readPairs<DayClosePoint>(rest);
  const sold = readPairs<readonly [number, number]>(rest);
  rest.end();
  return { hourThrough, keys, start, hour, close, quantity, dayThrough, days, sold };
}
