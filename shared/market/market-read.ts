/**
 * Whole-market reads (spec Market reads: history, intraday): whole day and hour pages, one Query per period
 * and all periods at once, folded per item. Items ascending by key, lists oldest first.
 */
import { dayOf } from '../clock';
import type { Candle, CandlePage, WireCandle } from '../domain/candles';
import type { VolumePage } from '../domain/volume-estimate';
import { periodsWithScans } from './candle-read';
import { daySoFar } from './day-so-far';
import { range } from './item-read';
import type { ReadSources } from './sources';

/** Spec history entry: `[item, [day, open, high, low, close, quantity][], [day, listed, sold, expired][]]`. */
export type HistoryItem = [item: number, candles: WireCandle[], volume: Array<[number, number, number, number]>];

/** Spec intraday entry: `[item, [hour, close, quantity][]]`. */
export type IntradayItem = [item: number, points: Array<[number, number, number]>];

export interface HistoryOptions {
  /** Hourly view: today is the day so far before this cut, and today's volume is left out. */
  cut?: number;
  withVolume: boolean;
}

/**
 * Spec history: every item with a day candle (or, with depth, a volume estimate) on days `from..today`,
 * candles with the day number as `t`; volume only with depth.
 */
export async function marketHistory(src: ReadSources, market: string, from: number, now: number, opts: HistoryOptions): Promise<HistoryItem[]> {
  const today = dayOf(now);
  const lastStored = opts.cut === undefined ? today : today - 1;
  const days = range(from, lastStored);
  const volumeDays = opts.withVolume ? days : [];
  const [pages, volumes, soFar] = await Promise.all([
    Promise.all(days.map((d) => src.store.candlePage(market, 'd1', d))),
    Promise.all(volumeDays.map((d) => src.store.volumePage(market, d))),
    opts.cut !== undefined && from <= today ? daySoFar(src, market, opts.cut) : Promise.resolve<CandlePage>(new Map()),
  ]);
  const items = new Map<number, HistoryItem>();
  const entry = (key: number): HistoryItem => {
    let e = items.get(key);
    if (!e) {
      e = [key, [], []];
      items.set(key, e);
    }
    return e;
  };
  const addDay = (day: number, page: ReadonlyMap<number, Candle>) => {
    for (const [key, c] of page) entry(key)[1].push([day, c.open, c.high, c.low, c.close, c.quantity]);
  };
  days.forEach((d, i) => {
    addDay(d, pages[i]);
  });
  if (opts.cut !== undefined && from <= today) addDay(today, soFar);
  volumeDays.forEach((d, i) => {
    for (const [key, v] of volumes[i] as VolumePage) entry(key)[2].push([d, v[0], v[1], v[2]]);
  });
  return [...items.values()].sort((a, b) => a[0] - b[0]);
}

/** Spec intraday: per item, `[hour, close, quantity]` of its hour candles of hours `from..toHour`. */
export async function marketIntraday(src: ReadSources, market: string, from: number, toHour: number): Promise<IntradayItem[]> {
  const hours = await periodsWithScans(src, market, 'h1', from, toHour);
  const pages = await Promise.all(hours.map((h) => src.store.candlePage(market, 'h1', h)));
  const items = new Map<number, IntradayItem>();
  hours.forEach((h, i) => {
    for (const [key, c] of pages[i]) {
      let e = items.get(key);
      if (!e) {
        e = [key, []];
        items.set(key, e);
      }
      e[1].push([h, c.close, c.quantity]);
    }
  });
  return [...items.values()].sort((a, b) => a[0] - b[0]);
}
