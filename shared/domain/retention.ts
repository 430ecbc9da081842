import { DAY_MS, dayOf, HOUR_MS, hourOf, minuteOf } from '../clock';
import type { CandleRes } from './candles';
import type { RowTable } from './merge';

/** Spec Retention: checked at most every 6 hours. */
export const RETENTION_EVERY_MS = 6 * HOUR_MS;
export const ROW_RETENTION_MS = 30 * DAY_MS;
export const RETAINED_DAYS = 90;
export const RETAINED_HOURS = 336;
export const RETAINED_MINUTES = 4320;
export const BOOK_RETENTION_MS = 30 * DAY_MS;
export const SCAN_LOG_RETENTION_MS = 30 * DAY_MS;
export const QUARANTINE_RETENTION_MS = 7 * DAY_MS;

/**
 * Spec Retention as cutoffs: everything strictly before a cutoff is deleted, everything at or after it kept.
 * Times are Unix ms; `day`, `hour`, `minute` are period numbers.
 */
export interface RetentionCutoffs {
  /** Rows whose reading (`at`) is before this. */
  rowAt: number;
  /** Day points, day candles and volume estimates of days before this. */
  day: number;
  /** Hour candles of hours before this. */
  hour: number;
  /** Minute candles of minutes before this. */
  minute: number;
  /** Book snapshots whose `at` is before this (the current book never expires). */
  bookAt: number;
  /** Scan log records before this. */
  scanLogAt: number;
  /** Quarantined uploads received before this. */
  quarantineAt: number;
}

/** Spec Retention: the cutoffs at server time `now`. */
export function retentionCutoffs(now: number): RetentionCutoffs {
  return {
    rowAt: now - ROW_RETENTION_MS,
    day: dayOf(now) - RETAINED_DAYS,
    hour: hourOf(now) - RETAINED_HOURS,
    minute: minuteOf(now) - RETAINED_MINUTES,
    bookAt: now - BOOK_RETENTION_MS,
    scanLogAt: now - SCAN_LOG_RETENTION_MS,
    quarantineAt: now - QUARANTINE_RETENTION_MS,
  };
}

/** Spec Retention for candle periods: the first period of `res` still kept at `now`. */
export function firstKeptPeriod(res: CandleRes, now: number): number {
  const c = retentionCutoffs(now);
  return res === 'm1' ? c.minute : res === 'h1' ? c.hour : c.day;
}

/**
 * Spec Retention: the earliest server time at which a period's page may be deleted, i.e. when the period
 * falls before the cutoff. Store adapters set it (in seconds) as the DynamoDB `ttl`.
 */
export function periodExpiresAt(res: CandleRes, period: number): number {
  if (res === 'm1') return (period + RETAINED_MINUTES + 1) * 60_000;
  if (res === 'h1') return (period + RETAINED_HOURS + 1) * HOUR_MS;
  return (period + RETAINED_DAYS + 1) * DAY_MS;
}

/** Spec Retention for rows: deletes rows whose reading is older than 30 days; returns the deleted keys ascending. */
export function pruneRows(rows: RowTable, now: number): number[] {
  const cutoff = retentionCutoffs(now).rowAt;
  const deleted: number[] = [];
  for (const [key, row] of rows) {
    if (row.at < cutoff) {
      rows.delete(key);
      deleted.push(key);
    }
  }
  return deleted.sort((a, b) => a - b);
}
