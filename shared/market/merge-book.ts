/**
 * The merge of one accepted book into its market (DESIGN "Uploads and merges" step 2; spec Market rules:
 * Merge, Candles, Order books; files: Sequence numbers). Runs one message at a time per market (FIFO group).
 *
 * Every write before the seq commit repeats to the same effect, and the seq commit is the last write, so a
 * merge cut short anywhere is completed exactly once by its redelivery: an interrupted one left its `pending`
 * record (seq, caps, server time) as its first write, so the repeat publishes the same files at the same time,
 * candle readings re-apply to the same values, volume shards carry the newest book they hold, the merge record
 * is rewritten unchanged (its stream INSERT, the live `ah`, happened once), and alert evaluation repeats at the
 * same time (after-merge.ts). A committed upload is recognised by `meta.lastUpload`: nothing follows the commit.
 */
import { randomBytes } from 'node:crypto';
import { dayOf } from '../clock';
import { bookTransition } from '../domain/book-current';
import { listedKeys, type SnapshotEcho, snapshotEcho } from '../domain/book-watch';
import { applyScanToCandles, periodOf, periodStart, RESOLUTIONS } from '../domain/candles';
import { newCap } from '../domain/caps';
import { deriveScan, type Scan } from '../domain/derived-scan';
import { mergeScan, type RowTable } from '../domain/merge';
import { addVolume, estimateVolume, type Volume } from '../domain/volume-estimate';
import type { BookFile } from '../files/documents';
import { isCheckpointSeq } from '../files/documents';
import { PAGE_SHARDS, shardOf } from '../page-format/shard-layout';
import type { CurrentBook, MarketMeta, MarketPages, PendingMerge, VolumeShard } from '../ports/market';
import type { Services } from '../services';
import type { MergeMessage } from '../upload/merge-message';
import { evaluateMergeAlerts } from './after-merge';
import { loadBookFile } from './book-file';
import { writeMergeFiles } from './merge-files';
import { MergePages } from './merge-pages';
import { settled } from './settled';

/** At least one SQS batch (10 messages): a batch received again after its merges committed skips them all. */
const RECENT_UPLOADS = 10;

/**
 * What the merge saw of the two watched risks (shared/domain/book-watch.ts): the keys listed before it and
 * those it marked gone; for a credited book, its items against the last hourly snapshot (null otherwise).
 */
export interface MergeWatch {
  listedBefore: number;
  gone: number;
  echo: SnapshotEcho | null;
}

export type MergeOutcome = { merged: true; seq: number; rowsChanged: number; watch: MergeWatch } | { merged: false; reason: 'already_merged' };

/** Merges one accepted book; throws when it must be received again (storage failure, lost seq race). */
export async function mergeBook(
  svc: Pick<Services, 'config' | 'clock' | 'queues' | 'settings' | 'identity' | 'market' | 'files' | 'log'>,
  msg: MergeMessage,
): Promise<MergeOutcome> {
  const store = svc.market.latest; // strongly consistent: the previous merge's writes, never a stale page
  const meta = await store.meta(msg.market);
  if (meta.lastUpload === msg.uploadId || meta.recentUploads?.includes(msg.uploadId)) return { merged: false, reason: 'already_merged' };
  const book = await loadBookFile(svc, msg.bookPath);
  const scan = deriveScan(book);
  // The pages the market's last merge here left, when still the stored ones (merge-pages.ts).
  const pages = new MergePages(store, meta);
  const { pending, repeated } = await begin(svc, store, meta, msg.uploadId);
  await pages.confirm(msg.uploadId);
  const now = pending.now;

  const rows = await pages.rows();
  // Judged on the rows as read, before the merge changes them in place.
  const listedBefore = listedKeys(rows);
  const echo = msg.credited ? snapshotEcho(scan, rows, now) : null;
  const { changed, gone } = mergeRows(rows, scan, msg.uploader, now, repeated);
  const transition = bookTransition(meta.currentBook, book);
  const at = Math.max(meta.newestScanAt ?? scan.at, scan.at);
  // Pages and files are independent of each other; everything that announces them waits for both.
  const [files] = await settled([
    writeMergeFiles(svc, msg.market, pending, at, rows, changed),
    changed.length > 0 ? store.writeRows(msg.market, rows, changed) : undefined,
    writeCandles(store, pages, msg.market, scan),
    transition.volume && meta.currentBook ? writeVolume(svc, store, pages, msg.market, meta.currentBook, book) : undefined,
  ] as const);

  await settled([
    svc.market.merges.put({ market: msg.market, seq: pending.seq, at, mergedAt: now, ...files, bookPath: msg.bookPath, bookAt: book.at }),
    svc.market.scans.put(
      { market: msg.market, at: scan.at, items: scan.items.length, complete: scan.complete, credited: msg.credited, uploader: msg.uploader, mergedAt: now },
      msg.uploadId,
    ),
    svc.market.books.put({
      market: msg.market,
      at: book.at,
      complete: book.complete,
      auctions: book.auctions,
      entries: book.entries.length,
      path: msg.bookPath,
      mergedAt: now,
    }),
  ]);
  const currentBook: CurrentBook | null = transition.replaces
    ? { at: book.at, complete: book.complete, auctions: book.auctions, entries: book.entries.length, ref: msg.bookPath }
    : meta.currentBook;
  const recentUploads = [...(meta.recentUploads ?? []), msg.uploadId].slice(-RECENT_UPLOADS);
  const merged = {
    seq: pending.seq,
    newestScanAt: at,
    firstMergeAt: meta.firstMergeAt ?? now,
    currentBook,
    lastUpload: msg.uploadId,
    recentUploads,
    pending: null,
  };
  await evaluateMergeAlerts(svc, { ...meta, ...merged }, scan, rows, pending, repeated);
  if (!(await store.commitMeta({ market: msg.market, ...merged }, meta.seq)))
    throw new Error(`merge ${msg.market}: seq ${pending.seq} was taken by another merge`);
  pages.keep(pending.seq);
  return { merged: true, seq: pending.seq, rowsChanged: changed.length, watch: { listedBefore: listedBefore + gone.earlier, gone: gone.total, echo } };
}

/**
 * Fixes the merge's seq, caps and time as its first write, or takes them back from the interrupted attempt
 * of the same upload.
 */
async function begin(
  svc: Pick<Services, 'clock'>,
  store: MarketPages,
  meta: MarketMeta,
  uploadId: string,
): Promise<{ pending: PendingMerge; repeated: boolean }> {
  const seq = meta.seq + 1;
  const earlier = meta.pending;
  if (earlier && earlier.uploadId === uploadId && earlier.seq === seq) return { pending: earlier, repeated: true };
  const pending: PendingMerge = { uploadId, seq, now: svc.clock.now(), changeCap: newCap(randomBytes) };
  if (isCheckpointSeq(seq)) pending.checkpointCap = newCap(randomBytes);
  if (!(await store.markPending(meta.market, pending))) throw new Error(`merge ${meta.market}: seq ${seq} was taken by another merge`);
  return { pending, repeated: false };
}

/**
 * Spec Merge rules 1-2 on the table; returns the changed keys, ascending, and how many listed keys it marked
 * gone. A book's `at` is unique in its market (duplicate rule), so on a repeat the rows an earlier attempt
 * already marked gone at T are this merge's own and belong in its change file, as in a merge that ran once;
 * they count as listed before that attempt and marked gone by it (`earlier`; one already gone before it is
 * counted too: the table no longer tells).
 */
function mergeRows(
  rows: RowTable,
  scan: Scan,
  reader: string,
  now: number,
  repeated: boolean,
): { changed: number[]; gone: { total: number; earlier: number } } {
  const { changed, delisted } = mergeScan(rows, scan, reader, now);
  if (!repeated || !scan.complete || scan.items.length === 0) return { changed, gone: { total: delisted, earlier: 0 } };
  const seen = new Set(changed);
  const extra: number[] = [];
  for (const [key, row] of rows) if (row.at === scan.at && row.price === null && !seen.has(key)) extra.push(key);
  const all = extra.length === 0 ? changed : [...changed, ...extra].sort((a, b) => a - b);
  return { changed: all, gone: { total: delisted + extra.length, earlier: extra.length } };
}

/** Spec Merge rule 3 and Candles: the scan's minute, hour and day pages (day points are the day candles). */
async function writeCandles(store: MarketPages, pages: MergePages, market: string, scan: Scan): Promise<void> {
  if (scan.items.length === 0) return;
  const keys = scan.items.map((i) => i[0]);
  await settled(
    RESOLUTIONS.map(async (res) => {
      const period = periodOf(res, scan.at);
      const page = await pages.candlePage(res, period);
      applyScanToCandles(page, scan);
      await store.writeCandlePage(market, res, period, periodStart(res, period), page, keys);
    }),
  );
}

/**
 * Spec Order books rule 4: estimates against the replaced book, added to the new book's UTC day. Each shard
 * remembers the newest book it holds, so a repeated merge never adds the same book twice.
 */
async function writeVolume(
  svc: Pick<Services, 'files'>,
  store: MarketPages,
  pages: MergePages,
  market: string,
  previous: CurrentBook,
  book: BookFile,
): Promise<void> {
  const prev = await loadBookFile(svc, previous.ref);
  const day = dayOf(book.at);
  const byShard = new Map<number, [number, Volume][]>();
  for (const est of estimateVolume(prev.entries, book.entries)) {
    const s = shardOf(est[0], PAGE_SHARDS);
    const list = byShard.get(s);
    if (list) list.push(est);
    else byShard.set(s, [est]);
  }
  if (byShard.size === 0) return;
  const shards = await pages.volumeShards(day);
  const touched = new Map<number, VolumeShard>();
  for (const [s, estimates] of byShard) {
    const shard = shards.get(s) ?? { page: new Map(), bookAt: null };
    if (shard.bookAt !== null && shard.bookAt >= book.at) continue;
    addVolume(shard.page, estimates);
    touched.set(s, { page: shard.page, bookAt: book.at });
  }
  await store.writeVolumeShards(market, day, touched);
  pages.wroteVolume(day, shards, touched);
}
