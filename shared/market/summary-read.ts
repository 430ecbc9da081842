/**
 * Spec market summary `{market, at, items, listed, scans, contributors7d, book?}` (GET /api/v1/ah): live, or
 * as of the hour's cut (hourly view). `contributors7d` is only ever a count: no uploader is revealed.
 */
import { DAY_MS } from '../clock';
import type { HourlySnapshot } from '../files/documents';
import type { ScanLogEntry } from '../ports/market';
import { type BookSummary, bookSummary, currentBookBefore } from './book-read';
import { newestScanBefore, tableAsOf } from './hourly-view';
import type { ReadSources } from './sources';

export interface MarketSummary {
  market: string;
  at: number;
  items: number;
  listed: number;
  scans: number;
  contributors7d: number;
  book?: BookSummary;
}

/** Spec Uploads: a book's `at` may lie up to 5 minutes ahead of the server clock. */
const AHEAD_MS = 5 * 60_000;

/**
 * Pure: scans in the 24 h before `ref` and distinct uploaders in the 7 days before it. With `includeRef`,
 * scans read up to `aheadMs` after `ref` count too (a live answer: a book may be observed a little ahead).
 */
export function activity(entries: readonly ScanLogEntry[], ref: number, includeRef: boolean, aheadMs = 0): { scans: number; contributors7d: number } {
  let scans = 0;
  const uploaders = new Set<string>();
  for (const e of entries) {
    if (includeRef ? e.at > ref + aheadMs : e.at >= ref) continue;
    if (e.at >= ref - DAY_MS) scans++;
    if (e.at >= ref - 7 * DAY_MS) uploaders.add(e.uploader);
  }
  return { scans, contributors7d: uploaders.size };
}

/** A market's live summary, or null when it has no data. */
export async function liveSummary(src: ReadSources, market: string, cdnBase: string, withBook: boolean): Promise<MarketSummary | null> {
  const now = src.clock.now();
  const meta = await src.store.meta(market);
  if (meta.newestScanAt === null && meta.seq === 0) return null;
  const [rows, entries] = await Promise.all([src.store.rows(market), src.scans.between(market, now - 7 * DAY_MS, now + AHEAD_MS)]);
  let listed = 0;
  let newestRow = 0;
  for (const r of rows.values()) {
    if (r.quantity > 0) listed++;
    if (r.at > newestRow) newestRow = r.at;
  }
  const out: MarketSummary = {
    market,
    at: meta.newestScanAt ?? newestRow,
    items: rows.size,
    listed,
    // The windows are measured back from now; only the newest end reaches ahead.
    ...activity(entries, now, true, AHEAD_MS),
  };
  if (withBook && meta.currentBook) out.book = bookSummary(cdnBase, meta.currentBook, meta.currentBook.ref);
  return out;
}

/** The rows and scan of the market as of a cut: the hour's snapshot file when one is written (it is that view), else null. */
export type SnapshotSource = (market: string, cut: number) => Promise<Pick<HourlySnapshot, 'rows' | 'scan'> | null>;

/** A market's summary as of `cut`, or null when nothing was read before cut. */
export async function hourlySummary(
  src: ReadSources,
  market: string,
  cut: number,
  cdnBase: string,
  withBook: boolean,
  snapshot?: SnapshotSource,
): Promise<MarketSummary | null> {
  const meta = await src.store.meta(market);
  if (meta.newestScanAt === null && meta.seq === 0) return null;
  const [view, entries] = await Promise.all([rowsAsOf(src, market, cut, snapshot), src.scans.between(market, cut - 7 * DAY_MS, cut - 1)]);
  let listed = 0;
  let newestRow: number | null = null;
  for (const r of view.rows) {
    if (r[2] > 0) listed++;
    if (newestRow === null || r[3] > newestRow) newestRow = r[3];
  }
  const at = view.scan ?? newestRow;
  if (at === null) return null;
  const out: MarketSummary = { market, at, items: view.rows.length, listed, ...activity(entries, cut, false) };
  if (withBook) {
    const book = await currentBookBefore(src, market, meta.currentBook, cut);
    if (book) out.book = bookSummary(cdnBase, book.book, book.path);
  }
  return out;
}

/** The hourly table's rows and scan: from the hour's snapshot file when there is one, else computed. */
async function rowsAsOf(src: ReadSources, market: string, cut: number, snapshot?: SnapshotSource): Promise<Pick<HourlySnapshot, 'rows' | 'scan'>> {
  const file = snapshot ? await snapshot(market, cut) : null;
  if (file) return file;
  const [table, scan] = await Promise.all([tableAsOf(src, market, cut), newestScanBefore(src, market, cut)]);
  return { rows: [...table.rows.values()], scan };
}
