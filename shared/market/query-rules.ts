/**
 * Query rules of the market reads (spec Market reads, Query rules; Chart windows and depth): the windows each
 * resolution serves and the clamps of `from`. Pure. The query text itself is parsed by the routes' zod
 * schemas (shared/api/market-reads.schemas.ts, market-books.schemas.ts); bad input is 400 `bad_query`.
 */
import { DAY_MS, dayOf, hourOf, minuteOf } from '../clock';
import { type CandleRes, periodMs } from '../domain/candles';
import { type DomainError, ValidationError } from '../errors';

const badQuery = (message: string): DomainError => new ValidationError('bad_query', message);

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

/** Spec books list: `from`/`to` Unix ms (parsed), default the last 30 days and now; 400 `bad_query` when from > to. */
export function bookRange(now: number, asked: { from?: number; to?: number }): { from: number; to: number } {
  const from = asked.from ?? now - 30 * DAY_MS;
  const to = asked.to ?? now;
  if (from > to) throw badQuery('from must not be after to');
  return { from, to };
}
