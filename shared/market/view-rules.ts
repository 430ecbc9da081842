/**
 * The hourly view's rules (spec Freshness), pure: which reading an item shows as of `cut`, how a day is
 * rebuilt from hour candles before it, and which callers share a reused answer. No I/O, no clock.
 */
import { dayOf, HOUR_MS, hourOf } from '../clock';
import { type Candle, type CandlePage, type DayPoint, dayPoint, foldCandles } from '../domain/candles';
import type { AuctionRow, Row } from '../domain/merge';
import type { Feature } from '../domain/roles';
import { HOURLY_VIEW_MS } from '../files/documents';

export { HOURLY_VIEW_MS };

/** Spec Freshness: `cut` = floor(now / 3600000) * 3600000; nothing read at or after it shows. */
export const cutOf = (now: number): number => hourOf(now) * HOUR_MS;

/** A reading of one item: price, quantity and the time of the scan it came from. */
export interface Reading {
  price: number;
  quantity: number;
  at: number;
}

/** The close reading of a candle (DESIGN: a row answered from a candle carries its close reading's time as `at`). */
export const closeReading = (c: Candle): Reading => ({ price: c.close, quantity: c.quantity, at: c.lastAt });

/**
 * Spec Freshness, the item's newest reading before `cut`: the day so far (hour candles of cut's day before
 * cut, which end where the minute candles would) else the newest earlier day point. `earlierDays` are day
 * candles of days before cut's day, any order. No age limit here: an old listing still tells that the item
 * had a row, which a later complete scan may have marked gone within the view's 30 days.
 */
export function readingBefore(cut: number, daySoFar: Candle | undefined, earlierDays: Iterable<readonly [day: number, candle: Candle]>): Reading | undefined {
  if (daySoFar && daySoFar.lastAt < cut) return closeReading(daySoFar);
  const today = dayOf(cut);
  let best: [number, Candle] | undefined;
  for (const [day, c] of earlierDays) if (day < today && (best === undefined || day > best[0])) best = [day, c];
  return best ? closeReading(best[1]) : undefined;
}

/**
 * Spec Freshness for one row (kept when read at most 30 days before `cut`, the hourly view rule): a row
 * read before `cut` shows as it is; a row read at or after cut shows the item's newest reading before cut,
 * and an item marked gone after cut therefore its last listing. `goneScans` are the `at`s of complete scans
 * with items merged into the market, ascending: each one after that reading (and before cut) marked the
 * row gone again (spec Merge rule 1), so the newest of them is the row's time as of cut.
 */
export function rowAsOf(
  key: number,
  row: Pick<Row, 'price' | 'quantity' | 'at'> | undefined,
  before: Reading | undefined,
  goneScans: readonly number[],
  cut: number,
): AuctionRow | null {
  if (row === undefined) return null;
  if (row.at < cut) return cut - row.at <= HOURLY_VIEW_MS ? [key, row.price, row.quantity, row.at] : null;
  if (before === undefined) return null;
  const gone = lastBetween(goneScans, before.at, cut);
  const asOf: AuctionRow = gone !== undefined ? [key, null, 0, gone] : [key, before.price, before.quantity, before.at];
  return cut - asOf[3] <= HOURLY_VIEW_MS ? asOf : null;
}

/** The last value `v` of an ascending list with `after < v < before`. */
export function lastBetween(sorted: readonly number[], after: number, before: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < before) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && sorted[lo - 1] > after ? sorted[lo - 1] : undefined;
}

/**
 * Folds one more period's page into a running page the caller owns (periods in order): the day so far grows
 * hour by hour. The page's Map changes in place (a copy per hour cost a whole market's entries each time);
 * its candles are replaced, never changed, so candles it shares with a cached fold stay as they were.
 */
export function foldPageInto(into: CandlePage, next: CandlePage): void {
  for (const [key, c] of next) {
    const had = into.get(key);
    into.set(key, had ? (foldCandles([had, c]) as Candle) : { ...c });
  }
}

/** Day points `[day, low, last, quantity]` of day candles, oldest first, keeping days `from..to`. */
export function dayPoints(days: Iterable<readonly [number, Candle]>, from: number, to: number): DayPoint[] {
  const out: DayPoint[] = [];
  for (const [day, c] of days) if (day >= from && day <= to) out.push(dayPoint(day, c));
  return out.sort((a, b) => a[0] - b[0]);
}

/** The first day of a day window of `historyDays` (DESIGN: history `from` clamped to today − historyDays; spec: 90 days kept). */
export const firstWindowDay = (now: number, historyDays: number): number => dayOf(now) - Math.min(90, historyDays);

/**
 * DESIGN "caller restriction": the tier that shapes a hourly answer. Built from what shapes answers (the
 * history window, depth, books) rather than role names, so grants and withholds never share an answer
 * they should not; for the role table it is anonymous/free, contributor and premium.
 */
export function restrictionOf(features: readonly Feature[], historyDays: number): string {
  const parts = [`h${historyDays}`];
  if (features.includes('depth')) parts.push('depth');
  if (features.includes('books')) parts.push('books');
  return parts.join('+');
}
