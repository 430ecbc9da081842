import { DAY_MS, HOUR_MS, MINUTE_MS } from '../clock';
import type { Scan } from './derived-scan';

/**
 * A candle as stored: the wire fields plus the times that decide later updates. `openAt` is the `at` of the
 * reading that set `open`, `lastAt` that of the reading that set `close` and `quantity`.
 */
export interface Candle {
  open: number;
  high: number;
  low: number;
  close: number;
  quantity: number;
  openAt: number;
  lastAt: number;
}

/** Candle resolutions: minute, hour, UTC day. */
export type CandleRes = 'm1' | 'h1' | 'd1';
export const RESOLUTIONS: readonly CandleRes[] = ['m1', 'h1', 'd1'];

/** One period's candles of a market, by item key. */
export type CandlePage = Map<number, Candle>;

/** Spec Day point `[day, low, last, quantity]`. */
export type DayPoint = [day: number, low: number, last: number, quantity: number];

/** Spec Candle on the wire `[t, open, high, low, close, quantity]`. */
export type WireCandle = [t: number, open: number, high: number, low: number, close: number, quantity: number];

const PERIOD_MS: Record<CandleRes, number> = { m1: MINUTE_MS, h1: HOUR_MS, d1: DAY_MS };

/** Length of a period of `res` in ms. */
export const periodMs = (res: CandleRes): number => PERIOD_MS[res];
/** Spec Candles: the UTC minute, hour or day number of T. */
export const periodOf = (res: CandleRes, at: number): number => Math.floor(at / PERIOD_MS[res]);
/** Start in Unix ms of a period number (the wire `t` of m1 and h1 candles). */
export const periodStart = (res: CandleRes, period: number): number => period * PERIOD_MS[res];

/**
 * Spec Candles, one reading at T into an item's candle (mutated in place, or created). A new candle opens at
 * the reading; otherwise low/high widen, a reading before `openAt` takes `open` (equal `at`: the first merged
 * keeps it), and a reading at or after `lastAt` takes `close` and `quantity` (equal `at`: the last merged wins).
 */
export function applyReading(page: CandlePage, key: number, price: number, quantity: number, at: number): Candle {
  const c = page.get(key);
  if (c === undefined) {
    const fresh: Candle = { open: price, high: price, low: price, close: price, quantity, openAt: at, lastAt: at };
    page.set(key, fresh);
    return fresh;
  }
  if (price < c.low) c.low = price;
  if (price > c.high) c.high = price;
  if (at < c.openAt) {
    c.open = price;
    c.openAt = at;
  }
  if (at >= c.lastAt) {
    c.close = price;
    c.quantity = quantity;
    c.lastAt = at;
  }
  return c;
}

/**
 * Spec Merge rule 3 and Candles: every scan item updates its candle in the page of the scan's period (the
 * caller passes the page of `periodOf(res, scan.at)`). Items missing from the scan get nothing.
 */
export function applyScanToCandles(page: CandlePage, scan: Scan): void {
  const at = scan.at;
  for (const item of scan.items) applyReading(page, item[0], item[1], item[2], at);
}

/**
 * Spec Merge rule 3: the day point equals the day candle's low, close and quantity, because both take
 * `last`/`close` from the day's newest scan with the last merged winning ties. So only day candles are stored.
 */
export const dayPoint = (day: number, c: Candle): DayPoint => [day, c.low, c.close, c.quantity];

/** Spec Candle on the wire; `t` is the period start in ms, or the day number in history answers. */
export const toWireCandle = (t: number, c: Candle): WireCandle => [t, c.open, c.high, c.low, c.close, c.quantity];

/**
 * Combines candles of consecutive, non-overlapping periods (e.g. an hour's minute candles) into one: open
 * from the earliest, close and quantity from the latest, extremes from all. Exact because periods partition
 * time, so no two inputs tie on `openAt` or `lastAt` across periods. Inputs must be in period order.
 */
export function foldCandles(candles: readonly Candle[]): Candle | undefined {
  if (candles.length === 0) return undefined;
  const out: Candle = { ...candles[0] };
  for (let i = 1; i < candles.length; i++) {
    const c = candles[i];
    if (c.low < out.low) out.low = c.low;
    if (c.high > out.high) out.high = c.high;
    if (c.openAt < out.openAt) {
      out.open = c.open;
      out.openAt = c.openAt;
    }
    if (c.lastAt >= out.lastAt) {
      out.close = c.close;
      out.quantity = c.quantity;
      out.lastAt = c.lastAt;
    }
  }
  return out;
}
