/**
 * What the recent-changes file reads, kept folded between runs. The file needs every item's finished hour
 * closes over 240 hours (the index window and its 72-hour carry), its newest 7 day closes and 7 days of
 * sold volume; reading 240 whole-market hour pages every hour costs seconds, so the snapshot job keeps them
 * in one compact series and folds in only the periods since its last run:
 *
 * - `hours`: `[hour, close, quantity]` per key for hours H-240 … H-1, plus each key's newest older point
 *   still inside hour-candle retention (it answers `ch7d` and the first spark windows exactly);
 * - `days`: each key's newest 7 day closes;
 * - `sold`: `[day, sold]` per key for the 7 days before the current one.
 *
 * Pure: folding and the binary form.
 */
import { Reader, Writer } from '../store/page-columns';
import type { DayClosePoint, HourPoint } from './recent-changes';

export interface HourSeries {
  /** Every hour up to and including this one is folded in (null: nothing yet). */
  hourThrough: number | null;
  hours: Map<number, HourPoint[]>;
  /** Every day up to and including this one is folded in (null: nothing yet). */
  dayThrough: number | null;
  days: Map<number, DayClosePoint[]>;
  sold: Map<number, (readonly [day: number, sold: number])[]>;
}

/** An hour page: key → `[close, quantity]`. */
export type HourCloses = ReadonlyMap<number, readonly [close: number, quantity: number]>;

/** Day closes kept per key (spec: `fair` is the lower median of the newest 7). */
export const DAY_CLOSES_KEPT = 7;
const FORMAT = 2;

export const emptySeries = (): HourSeries => ({ hourThrough: null, hours: new Map(), dayThrough: null, days: new Map(), sold: new Map() });

type Point = readonly [number, ...number[]];

/** Puts a point into a list ascending by its first field, replacing one of the same period. */
function place<P extends Point>(list: P[], point: P): void {
  if (list.length === 0 || list[list.length - 1][0] < point[0]) {
    list.push(point);
    return;
  }
  let i = list.length;
  while (i > 0 && list[i - 1][0] > point[0]) i--;
  if (i > 0 && list[i - 1][0] === point[0]) list[i - 1] = point;
  else list.splice(i, 0, point);
}

/** A refolded period: keys its page no longer has lose their point of it. */
function dropMissing<P extends Point>(map: Map<number, P[]>, period: number, page: ReadonlyMap<number, unknown>): void {
  for (const [key, list] of map) {
    if (page.has(key)) continue;
    const i = list.findIndex((p) => p[0] === period);
    if (i < 0) continue;
    list.splice(i, 1);
    if (list.length === 0) map.delete(key);
  }
}

function into<P extends Point>(map: Map<number, P[]>, key: number, point: P): void {
  const list = map.get(key);
  if (list) place(list, point);
  else map.set(key, [point]);
}

/**
 * Folds hour pages in (a page replaces what the series held for its hour), then keeps points of hours
 * `keepFrom` … and, per key, the newest older point whose hour is at least `retainFrom`.
 */
export function foldHours(series: HourSeries, pages: ReadonlyArray<readonly [hour: number, closes: HourCloses]>, keepFrom: number, retainFrom: number): HourSeries {
  const hours = series.hours;
  for (const [hour, closes] of [...pages].sort((a, b) => a[0] - b[0])) {
    for (const [key, [close, quantity]] of closes) into(hours, key, [hour, close, quantity] as HourPoint);
    if (series.hourThrough !== null && hour <= series.hourThrough) dropMissing(hours, hour, closes);
    series.hourThrough = Math.max(series.hourThrough ?? hour, hour);
  }
  for (const [key, list] of hours) {
    let cut = 0;
    while (cut < list.length && list[cut][0] < keepFrom) cut++;
    const from = cut > 0 && list[cut - 1][0] >= retainFrom ? cut - 1 : cut;
    if (from === list.length) hours.delete(key);
    else if (from > 0) hours.set(key, list.slice(from));
  }
  return series;
}

/** Folds day pages in (`closes`: key → close; `sold`: key → sold); keeps each key's newest 7 day closes and sold volume of days `soldFrom` …. */
export function foldDays(
  series: HourSeries,
  pages: ReadonlyArray<readonly [day: number, closes: ReadonlyMap<number, number>, sold: ReadonlyMap<number, number>]>,
  soldFrom: number,
): HourSeries {
  for (const [day, closes, sold] of [...pages].sort((a, b) => a[0] - b[0])) {
    for (const [key, close] of closes) into(series.days, key, [day, close] as DayClosePoint);
    for (const [key, n] of sold) into(series.sold, key, [day, n] as const);
    if (series.dayThrough !== null && day <= series.dayThrough) {
      dropMissing(series.days, day, closes);
      dropMissing(series.sold, day, sold);
    }
    series.dayThrough = Math.max(series.dayThrough ?? day, day);
  }
  for (const [key, list] of series.days) if (list.length > DAY_CLOSES_KEPT) series.days.set(key, list.slice(-DAY_CLOSES_KEPT));
  for (const [key, list] of series.sold) {
    const kept = list.filter((p) => p[0] >= soldFrom);
    if (kept.length === 0) series.sold.delete(key);
    else if (kept.length !== list.length) series.sold.set(key, kept);
  }
  return series;
}

const zig = (n: number): number => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzig = (n: number): number => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

/** Per key (ascending, as deltas) its points: first field as a delta, the others as zigzag deltas. */
function writeSection(w: Writer, map: ReadonlyMap<number, readonly Point[]>, width: number): void {
  const keys = [...map.keys()].sort((a, b) => a - b);
  w.uvar(keys.length);
  let prevKey = 0;
  const prev = new Array<number>(width);
  for (const key of keys) {
    const list = map.get(key) as readonly Point[];
    w.uvar(key - prevKey);
    prevKey = key;
    w.uvar(list.length);
    w.uvar(list[0][0]);
    prev.fill(0);
    prev[0] = list[0][0];
    for (const p of list) {
      w.uvar(p[0] - prev[0]);
      prev[0] = p[0];
      for (let f = 1; f < width; f++) {
        w.uvar(zig((p[f] as number) - prev[f]));
        prev[f] = p[f] as number;
      }
    }
  }
}

function readSection<P extends Point>(r: Reader, width: number): Map<number, P[]> {
  const n = r.uvar();
  const out = new Map<number, P[]>();
  let key = 0;
  const prev = new Array<number>(width);
  for (let i = 0; i < n; i++) {
    key += r.uvar();
    const count = r.uvar();
    prev.fill(0);
    prev[0] = r.uvar();
    const list = new Array<P>(count);
    for (let j = 0; j < count; j++) {
      prev[0] += r.uvar();
      for (let f = 1; f < width; f++) prev[f] += unzig(r.uvar());
      list[j] = (width === 3 ? [prev[0], prev[1], prev[2]] : [prev[0], prev[1]]) as unknown as P;
    }
    out.set(key, list);
  }
  return out;
}

const optional = (v: number | null): number => (v === null ? 0 : v + 1);
const fromOptional = (v: number): number | null => (v === 0 ? null : v - 1);

export function encodeSeries(s: HourSeries): Uint8Array {
  let points = 0;
  for (const list of s.hours.values()) points += list.length;
  const w = new Writer(4096 + points * 4);
  w.u8(FORMAT);
  w.uvar(optional(s.hourThrough));
  w.uvar(optional(s.dayThrough));
  writeSection(w, s.hours, 3);
  writeSection(w, s.days, 2);
  writeSection(w, s.sold, 2);
  return w.bytes();
}

export function decodeSeries(buf: Uint8Array): HourSeries {
  const r = new Reader(buf);
  if (r.u8() !== FORMAT) throw new RangeError('unknown hour series format');
  const hourThrough = fromOptional(r.uvar());
  const dayThrough = fromOptional(r.uvar());
  const hours = readSection<HourPoint>(r, 3);
  const days = readSection<DayClosePoint>(r, 2);
  const sold = readSection<readonly [number, number]>(r, 2);
  r.end();
  return { hourThrough, hours, dayThrough, days, sold };
}
