/**
 * Candle reads of a few items (spec Market reads: item candles and batch candles): day candles from the
 * items' history and day pages, hour candles from the items' shards of each hour page, minute candles from
 * the minutes that had a scan (the scan log says which, so 1440 mostly empty minutes are never read).
 */
import { DAY_MS, dayOf } from '../clock';
import { type Candle, periodOf, periodStart, toWireCandle, type WireCandle } from '../domain/candles';
import type { Volume } from '../domain/volume-estimate';
import { daySoFar, pageShardOf } from './day-so-far';
import { itemsDays, range } from './item-read';
import { candlePagesOf } from './page-cache';
import { daysOfWindow, type PeriodWindow } from './query-rules';
import type { ReadSources } from './sources';

/** Wire volume estimate `[day, listed, sold, expired]`. */
export type WireVolume = [day: number, listed: number, sold: number, expired: number];

export interface CandleRead {
  candles: Map<number, WireCandle[]>;
  /** Per key, only when asked for. */
  volume: Map<number, WireVolume[]>;
}

export interface CandleReadOptions {
  /** Hourly view: nothing read at or after this cut; the cut's day is its day so far. */
  cut?: number;
  withVolume?: boolean;
}

/** Candles of `keys` in a window, oldest first (`t` = period start in ms), and volume estimates of the window's days. */
export async function candlesInWindow(
  src: ReadSources,
  market: string,
  keys: readonly number[],
  w: PeriodWindow,
  opts: CandleReadOptions = {},
): Promise<CandleRead> {
  const withVolume = opts.withVolume ?? false;
  const candles = new Map<number, WireCandle[]>(keys.map((k) => [k, []]));
  const volume = new Map<number, WireVolume[]>(withVolume ? keys.map((k) => [k, []]) : []);
  const days = daysOfWindow(w);
  // The hourly view leaves today's volume out: its estimates cannot be split at the cut.
  const lastVolumeDay = opts.cut === undefined ? days.last : Math.min(days.last, dayOf(opts.cut) - 1);
  if (w.res === 'd1') {
    const today = opts.cut === undefined ? undefined : dayOf(opts.cut);
    const lastStored = today === undefined ? w.last : Math.min(w.last, today - 1);
    const [stored, soFar] = await Promise.all([
      itemsDays(src, market, keys, w.first, lastStored, withVolume),
      today !== undefined && today >= w.first && today <= w.last
        ? daySoFar(src, market, opts.cut as number, [...new Set(keys.map(pageShardOf))])
        : Promise.resolve(new Map<number, Candle>()),
    ]);
    for (const key of keys) {
      const list = candles.get(key) as WireCandle[];
      const d = stored.get(key);
      for (const day of range(w.first, lastStored)) {
        const c = d?.candles.get(day);
        if (c) list.push(toWireCandle(day * DAY_MS, c));
      }
      const t = soFar.get(key);
      if (t && today !== undefined) list.push(toWireCandle(today * DAY_MS, t));
      if (withVolume) volume.set(key, wireVolume(d?.volume, days.first, lastVolumeDay));
    }
    return { candles, volume };
  }
  const periods = await periodsWithScans(src, market, w.res, w.first, w.last);
  const [pages, vol] = await Promise.all([
    periods.length > 0 ? candlePagesOf(src, market, w.res, periods, keys) : Promise.resolve(new Map<number, Map<number, Candle>>()),
    withVolume ? itemsDays(src, market, keys, days.first, lastVolumeDay, true) : Promise.resolve(undefined),
  ]);
  for (const p of [...pages.keys()].sort((a, b) => a - b)) {
    const page = pages.get(p) as Map<number, Candle>;
    for (const [key, c] of page) candles.get(key)?.push(toWireCandle(periodStart(w.res, p), c));
  }
  if (vol) for (const key of keys) volume.set(key, wireVolume(vol.get(key)?.volume, days.first, lastVolumeDay));
  return { candles, volume };
}

/**
 * Minutes or hours `first..last` in which a scan was read: only they have candles. The scan log (kept 30
 * days, longer than the m1 and h1 windows) says which, so empty periods are never read: most of a day's
 * 1440 minutes, and the quiet hours of a market.
 */
export async function periodsWithScans(src: ReadSources, market: string, res: 'm1' | 'h1', first: number, last: number): Promise<number[]> {
  if (first > last) return [];
  const entries = await src.scans.between(market, periodStart(res, first), periodStart(res, last + 1) - 1);
  return [...new Set(entries.map((e) => periodOf(res, e.at)))].sort((a, b) => a - b);
}

/** Volume estimates of days `first..last` on the wire, oldest first. */
export function wireVolume(days: ReadonlyMap<number, Volume> | undefined, first: number, last: number): WireVolume[] {
  const out: WireVolume[] = [];
  if (!days) return out;
  for (const day of [...days.keys()].sort((a, b) => a - b)) {
    const v = days.get(day) as Volume;
    if (day >= first && day <= last) out.push([day, v[0], v[1], v[2]]);
  }
  return out;
}
