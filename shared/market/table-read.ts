/**
 * The live table answer's reads (spec Market reads: GET /api/v1/ah/:market?since; issue 15 point 6: cost). The
 * route reads the market's META (strongly consistent) for `seq` anyway; a warm function keeps the decoded rows
 * it last read under the META version they belong to, so a second read in the same version costs only META.
 *
 * What the cached rows may be served for, and why it is exact:
 * - A merge writes its row shards before it commits the next `seq` (merge-book.ts), with `pending` set on META
 *   from its first write until that commit. Rows are cached only when META showed no merge under way, and
 *   answered from cache only to a caller whose META shows the same `seq`, no merge under way.
 * - Retention rewrites row shards (rows 30 days old) without a merge: its transaction bumps META's `rowsRev`
 *   (store/market-retention.ts), which is part of the key.
 * - No other writer touches ROWS (redrive and seal only re-run merges or write files).
 * - On a miss the rows are read strongly consistent after META: an eventually consistent read just after a
 *   commit may still give the previous rows, which would then be served for the whole merge interval.
 *   Rows read while a merge is under way are answered as read (as before) and not kept.
 */
import type { AuctionRow, RowTable } from '../domain/merge';
import type { MarketPort } from '../ports/market';
import { ReadCache } from './read-cache';

/** A market's rows as the table answer lists them: keys ascending, each row's `changedAt` beside it. */
export interface TableRows {
  rows: readonly AuctionRow[];
  changedAt: Float64Array;
}

/**
 * Measured (node --expose-gc, 20000 rows of 9-10 digit prices and ms times): ~100 bytes of heap a row (a
 * 4-element array and its boxed numbers, plus 8 for `changedAt`), so a 20000-key market's rows are ~2 MB;
 * counted at 120 a row, 48 MB keeps every market of two stages' tables with room to spare.
 */
const ROW_BYTES = 120;
const tables = new ReadCache<TableRows>('table-rows', 48 * 1024 * 1024, (t) => 64 + t.rows.length * ROW_BYTES);

/** Packs a decoded table, keys ascending. */
export function packRows(table: RowTable): TableRows {
  const keys = Float64Array.from(table.keys()).sort();
  const rows: AuctionRow[] = new Array(keys.length);
  const changedAt = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const r = table.get(keys[i]) as NonNullable<ReturnType<RowTable['get']>>;
    rows[i] = [keys[i], r.price, r.quantity, r.at];
    changedAt[i] = r.changedAt;
  }
  return { rows, changedAt };
}

/** Rows changed at or after `since`, keys ascending (as `rowsChangedSince`, without decoding again); shared, never mutated. */
export function rowsSince(t: TableRows, since: number): AuctionRow[] {
  const out: AuctionRow[] = [];
  for (let i = 0; i < t.rows.length; i++) if (t.changedAt[i] >= since) out.push(t.rows[i]);
  return out;
}

/** The market's `seq` and rows, from this instance's cache when META still names the version it read. */
export async function tableRows(port: Pick<MarketPort, 'scope' | 'latest'>, market: string): Promise<{ seq: number; rows: TableRows }> {
  const meta = await port.latest.meta(market);
  const quiet = meta.pending === undefined || meta.pending === null;
  const key = `${port.scope}|${market}|${meta.seq}|${meta.rowsRev ?? 0}`;
  const hit = quiet ? tables.get(key) : undefined;
  if (hit) return { seq: meta.seq, rows: hit };
  const rows = packRows(await port.latest.rows(market));
  if (quiet) tables.set(key, rows);
  return { seq: meta.seq, rows };
}
