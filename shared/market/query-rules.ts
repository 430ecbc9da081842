/**
 * Query rules of the market reads (spec Market reads, Query rules; Chart windows and depth): parsing of
 * `since`, `res`, `from`, `to`, `items`, and the windows each resolution serves. Pure; bad input is 400
 * `bad_query`.
 */
import { DAY_MS, dayOf, hourOf, minuteOf } from '../clock';
import { type CandleRes, periodMs } from '../domain/candles';
import { isItemKey } from '../domain/item-key';
import { type DomainError, ValidationError } from '../errors';

const badQuery = (message: string): DomainError => new ValidationError('bad_query', message);
const INT = /^(0|[1-9][0-9]{0,15})$/;

/** A non-negative integer query value (Unix ms, hour or day number), undefined when absent, else 400 `bad_query`. */
export function intParam(query: Record<string, string>, name: string): number | undefined {
  const text = query[name];
  if (text === undefined) return undefined;
  if (!INT.test(text)) throw badQuery(`${name} must be a non-negative integer`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw badQuery(`${name} is too large`);
  return n;
}

/** Spec: candles `res` in m1, h1, d1 (default d1). */
export function resParam(query: Record<string, string>): CandleRes {
  const res = query.res ?? 'd1';
  if (res !== 'm1' && res !== 'h1' && res !== 'd1') throw badQuery('res must be m1, h1 or d1');
  return res;
}

/** Spec batch candles: `items` = 1..50 distinct keys, comma-separated, kept in request order. */
export function itemsParam(query: Record<string, string>): number[] {
  const text = query.items;
  if (text === undefined || text === '') throw badQuery('items must list 1 to 50 item keys');
  const parts = text.split(',');
  if (parts.length > 50) throw badQuery('at most 50 items');
  const keys: number[] = [];
  for (const p of parts) {
    const key = /^[0-9]{1,16}$/.test(p) ? Number(p) : Number.NaN;
    if (!isItemKey(key)) throw badQuery(`${p} is not an item key`);
    keys.push(key);
  }
  if (new Set(keys).size !== keys.length) throw badQuery('items must be distinct');
  return keys;
}

/** Periods `first..last` (inclusive) of a candle read. Empty when first > last. */
export interface PeriodWindow {
  res: CandleRes;
  first: number;
  last: number;
}

/**
 * Spec Query rules, candle windows: d1 from day today − 90, h1 from hour now − 336, both also within
 * `historyDays`; m1 from minute now − 1440. Candles start at or after `from` (an older `from` is served from
 * the window start, DESIGN: the default too). `finishedOnly` ends at the last finished period (hourly h1).
 */
export function candleWindow(res: CandleRes, now: number, historyDays: number, from: number | undefined, finishedOnly = false): PeriodWindow {
  let start: number;
  let current: number;
  if (res === 'd1') {
    current = dayOf(now);
    start = current - Math.min(90, historyDays);
  } else if (res === 'h1') {
    current = hourOf(now);
    start = current - Math.min(336, 24 * historyDays);
  } else {
    current = minuteOf(now);
    start = current - 1440;
  }
  const asked = from === undefined ? start : Math.ceil(from / periodMs(res));
  return { res, first: Math.max(start, asked), last: finishedOnly ? current - 1 : current };
}

/** The UTC days a window touches (for the volume estimates given with candles). */
export function daysOfWindow(w: PeriodWindow): { first: number; last: number } {
  const ms = periodMs(w.res);
  return { first: dayOf(w.first * ms), last: dayOf(w.last * ms) };
}

/** Spec intraday: `from` a UTC hour, default now − 24; earlier than now − 336 is served as that hour. */
export function intradayFrom(now: number, from: number | undefined): number {
  const hour = hourOf(now);
  return Math.max(hour - 336, from ?? hour - 24);
}

/** Spec history: `from` a UTC day, default today − 30, clamped to 90 days and to today − historyDays (DESIGN). */
export function historyFrom(now: number, historyDays: number, from: number | undefined): number {
  const today = dayOf(now);
  return Math.max(today - Math.min(90, historyDays), from ?? today - 30);
}

/** Spec books list: `from`/`to` Unix ms, default the last 30 days and now; 400 `bad_query` when from > to. */
export function bookRange(now: number, query: Record<string, string>): { from: number; to: number } {
  const from = intParam(query, 'from') ?? now - 30 * DAY_MS;
  const to = intParam(query, 'to') ?? now;
  if (from > to) throw badQuery('from must not be after to');
  return { from, to };
}
