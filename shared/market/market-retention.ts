/**
 * Spec Retention (checked at most every 6 hours), per market: rows whose reading is older than 30 days; day
 * candles (day points) and volume of days before day - 90; hour candles before hour - 336; minute candles
 * before minute - 4320; compacted history days before day - 90; quarantined bodies after 7 days. Book
 * and scan log entries expire by their `ttl` (reads treat a passed ttl as absent); book files are the files
 * bucket's retention. Periods are found from a per-market mark and the scan log, never by scanning the table.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../clock';
import { earliestDataAt } from '../domain/book';
import { MARKETS } from '../domain/market';
import { pruneRows, RETENTION_EVERY_MS, type RetentionCutoffs, retentionCutoffs } from '../domain/retention';
import type { HistoryPage, MarketMeta, MarketPages, PeriodKind, RetentionMark, RetentionPort } from '../ports/market';
import type { Services } from '../services';
import { deleteStored } from '../upload/book-storage';
import { historyMark } from './history-compaction';
import { readSources } from './sources';

export interface MarketRetention {
  market: string;
  ran: boolean;
  rowsDeleted: number;
  /** Page items deleted (candles and volume). */
  pagesDeleted: number;
  historyDaysDropped: number;
  quarantineDeleted: number;
  /** False when a merge intervened and rows wait for the next run. */
  rowsWritten: boolean;
}

/** Runs retention for every market at server time `now`. */
export async function runRetention(svc: Pick<Services, 'clock' | 'uploads' | 'market' | 'files' | 'log'>, now = svc.clock.now()): Promise<MarketRetention[]> {
  return Promise.all(MARKETS.map((m) => retainMarket(svc, m, now)));
}

/** Spec Retention for one market; does nothing when the market's last run is less than 6 hours old. */
export async function retainMarket(
  svc: Pick<Services, 'clock' | 'uploads' | 'market' | 'files' | 'log'>,
  market: string,
  now: number,
): Promise<MarketRetention> {
  const out: MarketRetention = { market, ran: false, rowsDeleted: 0, pagesDeleted: 0, historyDaysDropped: 0, quarantineDeleted: 0, rowsWritten: true };
  const marks = svc.market.retention;
  const last = await marks.mark(market);
  if (last && now - last.ranAt < RETENTION_EVERY_MS) return out;
  out.ran = true;
  const cut = retentionCutoffs(now);
  const store = svc.market.latest;
  const meta = await store.meta(market);
  out.quarantineDeleted = await dropQuarantined(svc, market, cut.quarantineAt);
  if (meta.firstMergeAt === null) {
    await marks.putMark(market, { ranAt: now, minute: cut.minute, hour: cut.hour, day: cut.day });
    return out;
  }
  const from = last ?? firstMark(meta);
  const rows = await store.rows(market);
  const deleted = pruneRows(rows, now);
  out.rowsDeleted = deleted.length;
  if (deleted.length > 0) out.rowsWritten = await marks.rewriteRowsIfUnchanged(market, rows, deleted, meta.seq);
  out.pagesDeleted = await dropPages(svc, marks, market, from, cut);
  if (from.day < cut.day) out.historyDaysDropped = await trimHistory(svc, store, market, cut.day);
  await marks.putMark(market, { ranAt: now, minute: Math.max(from.minute, cut.minute), hour: Math.max(from.hour, cut.hour), day: Math.max(from.day, cut.day) });
  return out;
}

/** Before a first run: the earliest periods a merge may have written (a book's `at` is at most 24 h old). */
function firstMark(meta: MarketMeta): RetentionMark {
  const earliest = earliestDataAt(meta.firstMergeAt as number);
  return { ranAt: 0, minute: Math.floor(earliest / MINUTE_MS), hour: Math.floor(earliest / HOUR_MS), day: Math.floor(earliest / DAY_MS) };
}

/**
 * Deletes candle and volume pages of periods in [mark, cutoff). Minute and hour pages exist only for the
 * minutes and hours of merged scans, which the scan log lists (it outlives both); days are few and walked.
 * Pages older than the scan log (a retention stalled for 30 days) go by their own `ttl`.
 */
async function dropPages(svc: Pick<Services, 'market'>, marks: RetentionPort, market: string, from: RetentionMark, cut: RetentionCutoffs): Promise<number> {
  const periods: Array<[PeriodKind, number]> = [];
  if (from.minute < cut.minute || from.hour < cut.hour) {
    const lower = Math.min(from.minute * MINUTE_MS, from.hour * HOUR_MS);
    const upper = Math.max(cut.minute * MINUTE_MS, cut.hour * HOUR_MS);
    const scans = await svc.market.scans.between(market, lower, upper);
    const minutes = new Set<number>();
    const hours = new Set<number>();
    for (const s of scans) {
      const minute = Math.floor(s.at / MINUTE_MS);
      const hour = Math.floor(s.at / HOUR_MS);
      if (minute >= from.minute && minute < cut.minute) minutes.add(minute);
      if (hour >= from.hour && hour < cut.hour) hours.add(hour);
    }
    for (const m of minutes) periods.push(['m1', m]);
    for (const h of hours) periods.push(['h1', h]);
  }
  for (let d = from.day; d < cut.day; d++) periods.push(['d1', d], ['volume', d]);
  let deleted = 0;
  for (let i = 0; i < periods.length; i += 8) {
    const counts = await Promise.all(periods.slice(i, i + 8).map(([kind, period]) => marks.deletePeriod(market, kind, period)));
    deleted += counts.reduce((a, b) => a + b, 0);
  }
  return deleted;
}

/**
 * Drops compacted history days before `firstKeptDay` (the day cutoff moved since the last run). The daily
 * compaction also drops them when it folds a day in; this keeps the rule when compaction has nothing to do.
 */
async function trimHistory(svc: Pick<Services, 'clock' | 'market'>, store: MarketPages, market: string, firstKeptDay: number): Promise<number> {
  // The mark is read first, then the shards strongly consistent (`store`): they hold every day up to it, so
  // the rewritten shards are stamped with it (a lagging mark read only stamps lower, which readers take as stale).
  const mark = await historyMark(readSources(svc), market);
  if (mark === null) return 0;
  const pages = await store.histories(market);
  const changed = new Map<number, HistoryPage>();
  const dropped = new Set<number>();
  for (const [shard, page] of pages) {
    let touched = false;
    for (const day of [...page.keys()]) {
      if (day < firstKeptDay) {
        page.delete(day);
        dropped.add(day);
        touched = true;
      }
    }
    if (touched) changed.set(shard, page);
  }
  if (changed.size > 0) await store.writeHistories(market, changed, mark);
  return dropped.size;
}

/** Deletes quarantined bodies received before `before`, then their records. */
async function dropQuarantined(svc: Pick<Services, 'uploads' | 'files' | 'log'>, market: string, before: number): Promise<number> {
  let n = 0;
  for (const rec of await svc.uploads.quarantinedBefore(market, before)) {
    if (!(await deleteStored(svc, rec.path))) continue;
    await svc.uploads.deleteQuarantine(market, rec.sk);
    n++;
  }
  return n;
}
