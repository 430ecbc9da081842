import type { Scan } from './derived-scan';

/**
 * A market's row for one item key. `at` is the time of the reading (the scan's `at`); consensus judges a
 * reading's age by it, so no separate read time is kept (every byte of a row is paid for on every merge).
 */
export interface Row {
  /** Lowest unit price, or null when the item was gone at the last complete scan. */
  price: number | null;
  quantity: number;
  at: number;
  /** Opaque hash of the account whose scan set this row: consensus needs the newest reading's account. */
  reader: string;
  /** Server time of the merge that last changed this row: `?since` selects rows changed at or after it. */
  changedAt: number;
}

/** A market's table: one row per item key. */
export type RowTable = Map<number, Row>;

/** Spec AuctionRow `[id, price, quantity, at]`. */
export type AuctionRow = [id: number, price: number | null, quantity: number, at: number];

/** What one merge did to the rows. */
export interface RowMerge {
  /** Keys of every row the merge changed (its own items it replaced and rows it marked gone), ascending. */
  changed: number[];
  /** How many of them were marked gone. */
  gone: number;
  /** How many of those had a price (were listed) before: what the merge took off the market. */
  delisted: number;
}

/**
 * Spec Market rules, Merge rules 1 and 2, applied in place to `rows` (changed rows are updated in place too,
 * sparing 20000 allocations per complete book): a complete scan with at least one item
 * turns every row older than T that it lacks into `[id, null, 0, T]`; each scan item replaces its row when
 * there is none or the row's `at` <= T (so an equal-`at` scan merged later wins), and a newer row stays.
 * `reader` is the uploader's opaque account hash, `now` the server time of this merge.
 *
 * The items go first: afterwards every row the scan lists has `at` >= T, so the rows still older than T are
 * exactly those it lacks (no set of listed keys, issue 27 point 2). The scan's items are ascending by key
 * (derived-scan.ts), so `changed` is their keys merged with the few gone ones, not a sort of 20000 numbers.
 */
export function mergeScan(rows: RowTable, scan: Scan, reader: string, now: number): RowMerge {
  const t = scan.at;
  const items = scan.items;
  const replaced: number[] = [];
  let ascendingKeys = true;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const key = item[0];
    if (i > 0 && key <= items[i - 1][0]) ascendingKeys = false;
    const row = rows.get(key);
    if (row === undefined) rows.set(key, { price: item[1], quantity: item[2], at: t, reader, changedAt: now });
    else if (row.at <= t) setRow(row, item[1], item[2], t, reader, now);
    else continue;
    replaced.push(key);
  }
  const goneKeys: number[] = [];
  let delisted = 0;
  if (scan.complete && items.length > 0) {
    for (const [key, row] of rows) {
      if (row.at < t) {
        if (row.price !== null) delisted++;
        setRow(row, null, 0, t, reader, now);
        goneKeys.push(key);
      }
    }
  }
  const gone = goneKeys.length;
  if (!ascendingKeys) return { changed: [...goneKeys, ...replaced].sort(ascending), gone, delisted };
  return { changed: gone === 0 ? replaced : mergeAscending(replaced, goneKeys.sort(ascending)), gone, delisted };
}

/** Two ascending key lists with no key in both, as one ascending list. */
function mergeAscending(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i] < b[j] ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

/** Spec `?since`: the rows the server changed at or after `since`, ascending by key. */
export function rowsChangedSince(rows: RowTable, since: number): AuctionRow[] {
  const out: AuctionRow[] = [];
  for (const [key, row] of rows) if (row.changedAt >= since) out.push(toAuctionRow(key, row));
  return out.sort((a, b) => a[0] - b[0]);
}

/** The rows named by `keys` as AuctionRows, for a change file (spec files: change file `rows`). */
export function pickRows(rows: RowTable, keys: readonly number[]): AuctionRow[] {
  const out: AuctionRow[] = [];
  for (const key of keys) {
    const row = rows.get(key);
    if (row) out.push(toAuctionRow(key, row));
  }
  return out;
}

/** Spec AuctionRow of a stored row. */
export const toAuctionRow = (key: number, row: Pick<Row, 'price' | 'quantity' | 'at'>): AuctionRow => [key, row.price, row.quantity, row.at];

/**
 * Spec client merge (`?since` and the gap rule): a received row replaces the stored one when there is none or
 * its `at` >= the stored `at`. Returns true when it replaced.
 */
export function applyClientRow(table: Map<number, AuctionRow>, row: AuctionRow): boolean {
  const stored = table.get(row[0]);
  if (stored !== undefined && row[3] < stored[3]) return false;
  table.set(row[0], row);
  return true;
}

function setRow(row: Row, price: number | null, quantity: number, at: number, reader: string, changedAt: number): void {
  row.price = price;
  row.quantity = quantity;
  row.at = at;
  row.reader = reader;
  row.changedAt = changedAt;
}

const ascending = (a: number, b: number): number => a - b;
