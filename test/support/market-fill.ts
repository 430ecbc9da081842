/**
 * Market data written straight through the store, with the pure merge rules, for store-level tests and the
 * reads benchmark (much faster than uploads for a 20000-key market over weeks): rows, minute/hour/day candle
 * pages, volume pages, the scan and merge logs and META, as the merge writes them.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, dayOf } from '../../shared/clock';
import type { Book } from '../../shared/domain/book';
import { applyScanToCandles, type CandlePage, type CandleRes, periodOf, periodStart, RESOLUTIONS } from '../../shared/domain/candles';
import { deriveScan, type Scan } from '../../shared/domain/derived-scan';
import { mergeScan } from '../../shared/domain/merge';
import { addVolume, estimateVolume, type VolumePage, volumeApplies } from '../../shared/domain/volume-estimate';
import { PAGE_SHARDS, splitShards } from '../../shared/page-format/shard-layout';
import type { VolumeShard } from '../../shared/ports/market';
import { MarketStore } from '../../shared/store/market-store';
import { MergeLog } from '../../shared/store/merge-log';
import { ScanLog } from '../../shared/store/scan-log';

export interface FillTarget {
  ddb: DynamoDBDocumentClient;
  table: string;
  clock: Clock;
}

/** Merges one scan (from a book or given) into a market as the merge would; `now` is the merge's server time. */
export async function mergeDirect(t: FillTarget, market: string, input: Scan | Book, now: number, uploader = 'u1'): Promise<number> {
  const store = new MarketStore(t.ddb, t.table, undefined, true);
  const scan = 'entries' in input ? deriveScan(input) : input;
  const meta = await store.meta(market);
  const rows = await store.rows(market);
  const { changed } = mergeScan(rows, scan, uploader, now);
  if (changed.length > 0) await store.writeRows(market, rows, changed);
  const keys = scan.items.map((i) => i[0]);
  for (const res of RESOLUTIONS) {
    if (keys.length === 0) break;
    const period = periodOf(res, scan.at);
    const page = await store.candlePage(market, res, period);
    applyScanToCandles(page, scan);
    await store.writeCandlePage(market, res, period, periodStart(res, period), page, keys);
  }
  const seq = meta.seq + 1;
  await new ScanLog(t.ddb, t.table, t.clock).put(
    { market, at: scan.at, items: scan.items.length, complete: scan.complete, credited: true, uploader, mergedAt: now },
    `fill-${seq}`,
  );
  await new MergeLog(t.ddb, t.table).put({
    market,
    seq,
    at: Math.max(meta.newestScanAt ?? scan.at, scan.at),
    mergedAt: now,
    changePath: `live/v1/${market}/${seq}-x.json.gz`,
    bookAt: scan.at,
  });
  const ok = await store.commitMeta(
    { ...meta, seq, newestScanAt: Math.max(meta.newestScanAt ?? scan.at, scan.at), firstMergeAt: meta.firstMergeAt ?? now },
    meta.seq,
  );
  if (!ok) throw new Error('seq race in mergeDirect');
  return seq;
}

/** The pages a run of books makes, built in memory: candles per resolution and period, volume per day. */
export interface BuiltPages {
  candles: Record<CandleRes, Map<number, CandlePage>>;
  volume: Map<number, VolumePage>;
}

/** Folds books (in `at` order) into candle and volume pages in memory, keeping only the resolutions asked for. */
export function buildPages(
  books: readonly Book[],
  keep: readonly CandleRes[],
  into: BuiltPages = emptyPages(),
  previous: Book | null = null,
): { pages: BuiltPages; last: Book | null } {
  let prev = previous;
  for (const book of books) {
    const scan = deriveScan(book);
    for (const res of keep) {
      const p = periodOf(res, scan.at);
      const page = into.candles[res].get(p) ?? new Map();
      applyScanToCandles(page, scan);
      into.candles[res].set(p, page);
    }
    if (prev && volumeApplies(prev.at, book.at)) {
      const day = dayOf(book.at);
      const page = into.volume.get(day) ?? new Map();
      addVolume(page, estimateVolume(prev.entries, book.entries));
      into.volume.set(day, page);
    }
    prev = book;
  }
  return { pages: into, last: prev };
}

export const emptyPages = (): BuiltPages => ({ candles: { m1: new Map(), h1: new Map(), d1: new Map() }, volume: new Map() });

/** A whole day's volume page as the shards that hold any of its keys, with no book mark (as no merge wrote them). */
export function volumeShardsOf(page: VolumePage): Map<number, VolumeShard> {
  const out = new Map<number, VolumeShard>();
  splitShards(page, PAGE_SHARDS).forEach((part, s) => {
    if (part.size > 0) out.set(s, { page: part, bookAt: null });
  });
  return out;
}

/** Writes built pages whole (every key of each period). */
export async function writePages(t: FillTarget, market: string, pages: BuiltPages): Promise<void> {
  const store = new MarketStore(t.ddb, t.table);
  const writes: Array<() => Promise<void>> = [];
  for (const res of RESOLUTIONS) {
    for (const [p, page] of pages.candles[res]) writes.push(() => store.writeCandlePage(market, res, p, periodStart(res, p), page, page.keys()));
  }
  for (const [day, page] of pages.volume) writes.push(() => store.writeVolumeShards(market, day, volumeShardsOf(page)));
  // A few at a time: DynamoDB Local slows down under many concurrent batch writes.
  for (let i = 0; i < writes.length; i += 4) await Promise.all(writes.slice(i, i + 4).map((w) => w()));
}
