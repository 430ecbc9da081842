import { HOUR_MS } from '../clock';
import type { Scan } from './derived-scan';
import type { RowTable } from './merge';

/**
 * Two contract-level risks the spec's rules let through, watched rather than refused (docs/security.md,
 * model"): the spec merges every book that does not `disagree`, and credits every complete, big enough one.
 *
 * - A complete book blanks a market: one upload marks most of the market's listed keys gone (Merge rule 1),
 *   e.g. a one-entry complete book stamped minutes ahead. The answer is unchanged; an operator looks.
 * - A credited book replays the public hourly snapshot: its lowest buyouts are the snapshot's prices, so the
 *   contributor earns credit for data anyone can download.
 *
 * Both are judged on the rows the merge already holds (every row of the market, read before it merges), in
 * one pass over them and one over the book's items: no read is added to a merge.
 */

/** Spec-like thresholds of the snapshot replay: at least this many comparable items, this share of them equal. */
export const REPLAY_MIN_ITEMS = 20;
export const REPLAY_SHARE = 0.95;

/** A market's listed keys: rows with a price (an item marked gone has none). */
export function listedKeys(rows: RowTable): number {
  let n = 0;
  for (const row of rows.values()) if (row.price !== null) n++;
  return n;
}

/** Whether one complete book marked more than half of the keys listed before it gone (0 listed: never). */
export const blanksMarket = (listedBefore: number, gone: number): boolean => listedBefore > 0 && gone * 2 > listedBefore;

export interface SnapshotEcho {
  /** The book's items whose row is as the last hourly snapshot published it (see `snapshotEcho`). */
  compared: number;
  /** Of those, the items whose lowest buyout equals the snapshot's price. */
  same: number;
}

/**
 * The book's items against the last hourly snapshot (the one at `cut` = the start of `now`'s hour): an item is
 * compared when its row has a price and was last changed by a merge before `cut` from a reading before `cut`
 * (so the snapshot at `cut` shows exactly that row: spec Hourly snapshot, rows as of `at`), and is the same
 * when the book's lowest buyout for it equals that price. Rows changed since `cut` are not compared: the
 * snapshot's value for them is no longer in the table. `rows` must be read before this merge changes them.
 */
export function snapshotEcho(scan: Scan, rows: RowTable, now: number): SnapshotEcho {
  const cut = Math.floor(now / HOUR_MS) * HOUR_MS;
  let compared = 0;
  let same = 0;
  for (const [key, price] of scan.items) {
    const row = rows.get(key);
    if (row === undefined || row.price === null || row.changedAt >= cut || row.at >= cut) continue;
    compared++;
    if (row.price === price) same++;
  }
  return { compared, same };
}

/** A credited book replays the snapshot: at least 20 compared items and at least 95 % of them the same. */
export const replaysSnapshot = (echo: SnapshotEcho): boolean => echo.compared >= REPLAY_MIN_ITEMS && echo.same >= REPLAY_SHARE * echo.compared;
