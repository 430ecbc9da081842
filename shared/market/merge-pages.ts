/**
 * The pages a merge leaves in memory for the next merge of the same market on the same instance (issue 27
 * point 2: decoding the rows, the hour and day candle pages and the day's volume shards again cost a third of
 * a steady merge). A merge function instance merges one market's FIFO group in order, so the next merge of a
 * market usually runs where the last one did and starts from exactly what that one wrote.
 *
 * When the kept pages are exactly the stored ones, and so may stand in for a strongly consistent read:
 *  - they are kept only after their merge committed its seq S (the commit is the merge's last write), and
 *    taken out of the keep before a merge starts to change them in place, so a merge that fails leaves
 *    nothing behind (its redelivery reads the store);
 *  - they are used only when META shows S, no merge under way (`pending`: a merge of another instance cut
 *    short may have written some pages of S + 1 already) and the same `rowsRev` as when they were kept
 *    (retention rewrites row shards without a merge and bumps it; page-cache.ts). That is checked twice:
 *    on the META the merge starts from, and again right after it marked its own merge pending, since
 *    retention may run between the two and cannot after (it holds only while no merge is pending);
 *  - no other writer changes row shards, hour or day candle pages or volume shards of a period a merge may
 *    still write: retention deletes only periods past every book's window (spec Retention; day folds and
 *    history are other items).
 * A merge by another instance moves META's seq past S, so the kept pages are dropped, never used.
 *
 * Memory: ~13 MB for a 20000-key market (rows, one hour and one day page, one day's volume shards), at most
 * `MARKETS` markets per store (the least recently merged dropped), well inside the merge function's memory.
 */
import type { CandlePage, CandleRes } from '../domain/candles';
import type { RowTable } from '../domain/merge';
import type { MarketMeta, MarketPages, VolumeShard } from '../ports/market';

/** Markets kept per store instance (a merge instance rarely serves more at once). */
const MARKETS = 8;
/** Candle resolutions worth keeping: every merge of an hour or day writes the same page again (minutes rarely). */
const KEPT_RES: ReadonlySet<CandleRes> = new Set<CandleRes>(['h1', 'd1']);

interface Kept {
  seq: number;
  rowsRev: number;
  rows: RowTable | null;
  /** `res|period` → whole page. */
  candles: Map<string, CandlePage>;
  /** day → every stored shard of the day's volume page. */
  volume: Map<number, Map<number, VolumeShard>>;
}

const keeps = new WeakMap<MarketPages, Map<string, Kept>>();

function keepOf(store: MarketPages): Map<string, Kept> {
  let keep = keeps.get(store);
  if (!keep) {
    keep = new Map();
    keeps.set(store, keep);
  }
  return keep;
}

const usable = (kept: Kept, meta: MarketMeta): boolean => !meta.pending && meta.seq === kept.seq && (meta.rowsRev ?? 0) === kept.rowsRev;

/**
 * One merge's page reads: from the pages the market's last merge on this instance kept when they are still
 * the stored ones, else from the store; `keep` after the merge committed leaves them for the next merge.
 */
export class MergePages {
  private kept: Kept | null;
  private readonly next: Kept;

  /** Takes what is kept for `meta.market` out of the keep (a merge changes it in place) and checks it against `meta`. */
  constructor(
    private readonly store: MarketPages,
    private readonly meta: MarketMeta,
  ) {
    const keep = keepOf(store);
    const kept = keep.get(meta.market) ?? null;
    keep.delete(meta.market);
    this.kept = kept && usable(kept, meta) ? kept : null;
    this.next = { seq: meta.seq, rowsRev: meta.rowsRev ?? 0, rows: null, candles: new Map(), volume: new Map() };
  }

  /** Whether kept pages stand in for reads (for tests and logs). */
  get warm(): boolean {
    return this.kept !== null;
  }

  /**
   * Called once the merge's `pending` is recorded: reads META again when pages are kept, and drops them unless
   * it still shows their seq and rowsRev (a retention run in between) with this merge pending.
   */
  async confirm(uploadId: string): Promise<void> {
    if (!this.kept) return;
    const now = await this.store.meta(this.meta.market);
    if (now.seq !== this.kept.seq || (now.rowsRev ?? 0) !== this.kept.rowsRev || now.pending?.uploadId !== uploadId) this.kept = null;
  }

  async rows(): Promise<RowTable> {
    const rows = this.kept?.rows ?? (await this.store.rows(this.meta.market));
    this.next.rows = rows;
    return rows;
  }

  async candlePage(res: CandleRes, period: number): Promise<CandlePage> {
    const key = `${res}|${period}`;
    const page = this.kept?.candles.get(key) ?? (await this.store.candlePage(this.meta.market, res, period));
    if (KEPT_RES.has(res)) this.next.candles.set(key, page);
    return page;
  }

  async volumeShards(day: number): Promise<Map<number, VolumeShard>> {
    return this.kept?.volume.get(day) ?? (await this.store.volumeShards(this.meta.market, day));
  }

  /** The day's shards as written: `shards` as read with `written` replacing theirs. */
  wroteVolume(day: number, shards: Map<number, VolumeShard>, written: ReadonlyMap<number, VolumeShard>): void {
    for (const [s, v] of written) shards.set(s, v);
    this.next.volume = new Map([[day, shards]]);
  }

  /**
   * After the merge's seq commit: its pages (changed in place to what it wrote) are kept under `seq`, with the
   * earlier ones it did not touch (still stored as they were).
   */
  keep(seq: number): void {
    const next = this.next;
    next.seq = seq;
    if (this.kept) {
      next.rows ??= this.kept.rows;
      for (const [key, page] of this.kept.candles) if (!next.candles.has(key) && next.candles.size < 2 * KEPT_RES.size) next.candles.set(key, page);
      if (next.volume.size === 0) next.volume = this.kept.volume;
    }
    const keep = keepOf(this.store);
    keep.set(this.meta.market, next);
    while (keep.size > MARKETS) keep.delete(keep.keys().next().value as string);
  }
}
