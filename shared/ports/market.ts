/**
 * The market port: a market's state and data as the merge, the reads and the file jobs need them (DESIGN:
 * packed pages). `pages`: the market's META (seq, current book, the merge under way), rows, candle, volume and
 * compacted history pages by key shard, and the day-so-far folds; `merges`, `scans`, `books`: the merge, scan
 * and book logs; `retention`: where retention left each market; `failures`: the poison budget of uploads;
 * `caps`: the capabilities of capped files; `filesState`: the newest sealed periods and files; `answers`: the
 * hour's reused read answers. The DynamoDB adapter is shared/store/dynamo-market.ts.
 */
import type { Candle, CandlePage, CandleRes } from '../domain/candles';
import type { CapScope, CapStore } from '../domain/caps';
import type { FilesState, SealRes } from '../domain/files-state';
import type { HistoryDay, HistoryPage } from '../domain/history';
import type { RowTable } from '../domain/merge';
import type { VolumePage } from '../domain/volume-estimate';
import type { CandleCloses, ShardCloses } from '../page-format/page-closes';

/** The current order book of a market (spec Order books rule 2). */
export interface CurrentBook {
  at: number;
  complete: boolean;
  auctions: number;
  entries: number;
  /** Bucket key of the stored body. */
  ref: string;
}

/** A market's state, read by every merge and most reads. */
export interface MarketMeta {
  market: string;
  /** Newest merge sequence number (0 before the first). */
  seq: number;
  /** Newest merged scan `at` (null before the first merge). */
  newestScanAt: number | null;
  /** Server time of the first merge (sealing writes every period from it on). */
  firstMergeAt: number | null;
  currentBook: CurrentBook | null;
  /** Days up to and including this one are compacted into history pages (null: none yet). */
  historyThrough: number | null;
  /** Identity of the newest merged upload, so a redelivered message merges nothing twice. */
  lastUpload: string | null;
  /** The merge under way (written first, cleared by its commit), so a redelivery reuses its caps and time. */
  pending?: PendingMerge | null;
  /** The newest merged upload ids (a whole FIFO batch), so a batch delivered again merges none of them twice. */
  recentUploads?: string[];
  /** Bumped by each retention rewrite of row shards (rows change without a merge): caches of rows key on it. */
  rowsRev?: number;
}

/** The state of a market no merge has touched yet (what every adapter answers before the first commit). */
export const emptyMarketMeta = (market: string): MarketMeta => ({
  market,
  seq: 0,
  newestScanAt: null,
  firstMergeAt: null,
  currentBook: null,
  historyThrough: null,
  lastUpload: null,
});

/** What a merge fixes before its first page write: a redelivered message repeats it exactly. */
export interface PendingMerge {
  uploadId: string;
  seq: number;
  /** Server time of the merge (rows' `changedAt`, `mergedAt`). */
  now: number;
  changeCap: string;
  checkpointCap?: string;
}

/** One key shard of a day's volume page and the newest book whose estimates it holds (volume is additive). */
export interface VolumeShard {
  page: VolumePage;
  bookAt: number | null;
}

/** The history shapes live in the domain (the page format encodes them); the port's users import them from here. */
export type { HistoryDay, HistoryPage };

/**
 * A history shard as stored: its encoded page, or every part of a split one (none when never written), and
 * `through`, the compaction mark its writer stamped (null: never written, or written before stamps). A version
 * stamped `through` holds every compacted day up to it, and compaction never changes a day at or before its
 * mark, so any version stamped at or past the mark a reader read answers those days, whichever replica sent it.
 */
export interface StoredHistoryShard {
  parts: Uint8Array[];
  through: number | null;
}

export interface MergeRecord {
  market: string;
  seq: number;
  /** The market's newest scan `at` after this merge (spec change file `at`). */
  at: number;
  /** Server time of the merge. */
  mergedAt: number;
  /** Bucket path of the change file `live/v1/<market>/<seq>-<cap>.json.gz`. */
  changePath: string;
  /** Bucket path of the checkpoint written after this merge (seq 1 and every 50th), if any. */
  checkpointPath?: string;
  /** Bucket path of the book file when the merge was a book (`books/v1/<market>/<at>-<cap>.json.gz`). */
  bookPath?: string;
  /** The merged book's own `at`. */
  bookAt?: number;
}

export interface ScanLogEntry {
  market: string;
  at: number;
  items: number;
  complete: boolean;
  credited: boolean;
  /** Opaque account hash, never the account id. */
  uploader: string;
  /** Server time of the merge. */
  mergedAt: number;
}

export interface BookLogEntry {
  market: string;
  at: number;
  complete: boolean;
  auctions: number;
  entries: number;
  /** Bucket path of `books/v1/<market>/<at>-<cap>.json.gz`. */
  path: string;
  /** Server time of the merge. */
  mergedAt: number;
}

/** Where the last run left a market: periods before these are gone. */
export interface RetentionMark {
  /** Server time of the last run (runs at most every 6 hours). */
  ranAt: number;
  minute: number;
  hour: number;
  day: number;
}

/** A stored day-so-far fold of one page shard, and the market's seq read before the hour pages it folds. */
export interface DayFold {
  page: CandlePage;
  seq: number;
}

/** A market's META and its pages by key shard (shared/page-format/shard-layout.ts). */
export interface MarketPages {
  /** The market's state (empty before its first merge). */
  meta(market: string): Promise<MarketMeta>;
  /** Commits a merge's new state while the stored seq is still `expectedSeq`; false when another merge got there first. */
  commitMeta(next: Pick<MarketMeta, 'market'> & Partial<MarketMeta>, expectedSeq: number): Promise<boolean>;
  /** Records the merge about to take `pending.seq` while the stored seq is the one before it; false when another got there first. */
  markPending(market: string, pending: PendingMerge): Promise<boolean>;
  /** The market's whole table. */
  rows(market: string): Promise<RowTable>;
  /** The rows of `keys`. */
  rowsOf(market: string, keys: readonly number[]): Promise<RowTable>;
  /** Whole row shards (every row each holds), by shard; shards never written are left out (the API's read caches). */
  rowShards(market: string, shards: readonly number[]): Promise<Map<number, RowTable>>;
  /** Rewrites the row shards that hold `changedKeys` from the full table (rows missing from it leave their shard). */
  writeRows(market: string, rows: RowTable, changedKeys: Iterable<number>): Promise<void>;
  /** One whole period's candles. */
  candlePage(market: string, res: CandleRes, period: number): Promise<CandlePage>;
  /** One whole period's closes and quantities as each shard's columns (keys ascending per shard). */
  candleCloses(market: string, res: CandleRes, period: number): Promise<CandleCloses[]>;
  /**
   * One key shard's closes and quantities over several periods (periods without the shard left out): one
   * key-major block when they all list the same keys, else period → columns.
   */
  candleClosesOfShard(market: string, res: CandleRes, periods: readonly number[], shard: number): Promise<ShardCloses>;
  /** Candles of `keys` over several periods: period → key → candle (periods without any left out). */
  candlesOf(market: string, res: CandleRes, periods: readonly number[], keys: readonly number[]): Promise<Map<number, Map<number, Candle>>>;
  /** Single page shards of periods (those stored): what folding an hour by shard reads. */
  candleShards(
    market: string,
    res: CandleRes,
    wanted: ReadonlyArray<{ period: number; shard: number }>,
  ): Promise<Array<{ period: number; shard: number; page: CandlePage }>>;
  /** Rewrites the shards of a period's page that hold `changedKeys` (`start`: the period's start). */
  writeCandlePage(market: string, res: CandleRes, period: number, start: number, page: CandlePage, changedKeys: Iterable<number>): Promise<void>;
  /** One day's volume estimates. */
  volumePage(market: string, day: number): Promise<VolumePage>;
  /** Volume estimates of `keys` over several days: day → key → estimate. */
  volumeOf(market: string, days: readonly number[], keys: readonly number[]): Promise<Map<number, VolumePage>>;
  /** Whole volume shards of days (those stored): what the API's read caches keep. */
  volumeShardsOf(market: string, wanted: ReadonlyArray<{ day: number; shard: number }>): Promise<Array<{ day: number; shard: number; page: VolumePage }>>;
  /** A day's volume page by key shard, with the newest book each shard holds. */
  volumeShards(market: string, day: number): Promise<Map<number, VolumeShard>>;
  /** Writes whole volume shards with their book marks. */
  writeVolumeShards(market: string, day: number, shards: ReadonlyMap<number, VolumeShard>): Promise<void>;
  /** The compacted history page holding `key`, or all of `keys` (keys of one shard); entries of other keys may be left out. */
  historyOf(market: string, key: number | readonly number[]): Promise<HistoryPage>;
  /**
   * A whole history shard as stored: its encoded page, or every part of a split one (`decodeHistoryParts` reads
   * them); none when never written. What the API's read caches keep (a shard's bytes are ~30 times smaller than
   * its decoded page).
   */
  historyShardBytes(market: string, shard: number): Promise<Uint8Array[]>;
  /**
   * The same bytes with the compaction mark the writer stamped on them (`writeHistories`' `through`): what lets
   * a reader trust an eventually consistent read of the shard (issue 27 point 4). With `keys` (keys of this
   * shard), parts of a split shard not holding them may be left out, as `historyOf` reads: an uncached item read
   * learns the stamp with the same read.
   */
  historyShard(market: string, shard: number, keys?: readonly number[]): Promise<StoredHistoryShard>;
  /** Every history shard: shard → page. */
  histories(market: string): Promise<Map<number, HistoryPage>>;
  /**
   * Writes whole history shards, each stamped with `through`: the compaction mark their content covers (every
   * compacted day up to it is in them). Omitted: unstamped, as shards stored before stamps; readers then read
   * the shard strongly consistent.
   */
  writeHistories(market: string, pages: ReadonlyMap<number, HistoryPage>, through?: number): Promise<void>;
  /** The last day compacted into history, or null before the first compaction. */
  historyMark(market: string): Promise<number | null>;
  putHistoryMark(market: string, through: number, at: number): Promise<void>;
  /** The stored day-so-far folds of `hour` for `shards` (those not expired at `now`). */
  dayFolds(market: string, hour: number, shards: readonly number[], now: number): Promise<Map<number, DayFold>>;
  /** Stores the day-so-far folds of `hour` (kept until the day ends plus an hour). */
  writeDayFolds(market: string, hour: number, folds: ReadonlyMap<number, CandlePage>, seq: number): Promise<void>;
}

/** The merge log: one record per merge seq (its INSERT becomes live `ah` messages). */
export interface MergeLogPort {
  /** Writes a merge record; a redelivered merge writes the same record again. */
  put(record: MergeRecord): Promise<void>;
  /** Records with seq above `afterSeq`, ascending (expired ones left out). */
  after(market: string, afterSeq: number, now: number): Promise<MergeRecord[]>;
  /** The newest record that carries a checkpoint (null when none is retained). */
  newestCheckpoint(market: string, now: number): Promise<MergeRecord | null>;
}

/** The scan log (spec Retention: kept 30 days, never answered). */
export interface ScanLogPort {
  /** Writes an entry; `id` (the upload id) makes a redelivered merge overwrite rather than double it. */
  put(e: ScanLogEntry, id: string): Promise<void>;
  /** Live entries with `fromAt <= at <= toAt`, ascending by `at`. */
  between(market: string, fromAt: number, toAt: number): Promise<ScanLogEntry[]>;
}

/** Stored books (spec Retention: kept 30 days), by `at`. */
export interface BookLogPort {
  /** Writes an entry; the same market and `at` overwrite. */
  put(e: BookLogEntry): Promise<void>;
  /** Live entries with `fromAt <= at <= toAt`, newest first. */
  between(market: string, fromAt: number, toAt: number): Promise<BookLogEntry[]>;
  /** The entry of the book observed at `at` (null when none or expired). */
  get(market: string, at: number): Promise<BookLogEntry | null>;
}

/** A period's pages: candles of a resolution, or a day's volume. */
export type PeriodKind = CandleRes | 'volume';

/** Market retention's own state and deletions (spec Retention). */
export interface RetentionPort {
  mark(market: string): Promise<RetentionMark | null>;
  putMark(market: string, mark: RetentionMark): Promise<void>;
  /** Deletes every page shard of one period; answers how many there were. */
  deletePeriod(market: string, kind: PeriodKind, period: number): Promise<number>;
  /** Rewrites the row shards holding `deletedKeys` while the seq is still `seq` and no merge is under way; false when one intervened. */
  rewriteRowsIfUnchanged(market: string, rows: RowTable, deletedKeys: readonly number[], seq: number): Promise<boolean>;
}

/** How often an upload's merge failed for a reason that was not a dependency's (docs/failure-model.md). */
export interface MergeFailuresPort {
  /** Counts one more failure of the upload's merge at `now`; answers the count so far. */
  count(market: string, uploadId: string, error: string, now: number): Promise<number>;
}

/** Day caps of a resolution with files per day. */
export type DayCapKind = 'm1' | 'h1';

/** Capabilities (spec capability rules 1 and 3): one per scope, made once. */
export interface MarketCaps extends CapStore {
  /** Day caps of `kind` for days `fromDay … toDay` that exist: day → cap. */
  dayCaps(market: string, kind: DayCapKind, fromDay: number, toDay: number): Promise<Map<number, string>>;
  /** The day's `m1` and `h1` caps, made when missing. */
  ensureDay(market: string, day: number): Promise<{ m1: string; h1: string }>;
}

/** A market's file state: newest sealed periods and files, newest snapshot hour. */
export interface FilesStatePort {
  get(market: string): Promise<FilesState>;
  /** Moves a resolution's sealed period from `previous` to `next` with the newest paths; false when another run moved it. */
  advanceSealed(market: string, res: SealRes, previous: number | null, next: number, paths: Record<string, string>): Promise<boolean>;
  /** Records the newest snapshot hour (never moving it back). */
  recordSnapshotHour(market: string, hour: number): Promise<void>;
}

/** The hour's first answer of a read, reused until the hour ends (spec Freshness). */
export interface AnswerStore {
  /** The body stored under `hash`, or null when absent, expired or incomplete. */
  read(hash: string, now: number): Promise<string | null>;
  /** Stores a body until the end of `now`'s hour. */
  write(hash: string, body: string, now: number): Promise<void>;
  /** The hour's file of an answer too big for a Lambda (answers/v1/…), or null when none is recorded for `now`'s hour. */
  spilledFile(key: string, now: number): Promise<string | null>;
  /** Records `path` as the hour's file of `key` unless another is; answers the recorded one (the first wins a race). */
  recordSpilledFile(key: string, path: string, now: number): Promise<string>;
  /**
   * A stored answer fragment (shared/market/market-read.ts: a day's or an hour's JSON elements of every item,
   * kept in the form they are answered in), or null when none is stored or it has expired at `now`.
   */
  readFragment(key: string, now: number): Promise<Uint8Array | null>;
  /** Stores a fragment until `expiresAt` (ms), replacing any under `key`. */
  writeFragment(key: string, data: Uint8Array, expiresAt: number): Promise<void>;
}

export interface MarketPort {
  /** Names the store, for in-process caches of what never changes again (final days). */
  readonly scope: string;
  /** The pages as reads see them (eventually consistent reads: half the read cost). */
  pages: MarketPages;
  /** The same pages read strongly consistent: the merge and retention read what the previous merge just wrote. */
  latest: MarketPages;
  merges: MergeLogPort;
  scans: ScanLogPort;
  books: BookLogPort;
  retention: RetentionPort;
  failures: MergeFailuresPort;
  caps: MarketCaps;
  filesState: FilesStatePort;
  answers: AnswerStore;
}

/** A cap scope of day caps (what `ensureDay` makes). */
export type DayCapScope = Extract<CapScope, { kind: DayCapKind }>;
