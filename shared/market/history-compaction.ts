/**
 * Day history compaction (DESIGN: packed pages; MarketStore history pages): finished days' day candles and
 * volume estimates are folded into the fine history shards, so one item's 90 days cost one small read. The
 * mark (`through` day) lives in its own item, not in META, because merges commit META with a conditional
 * seq write this job must never race. Reads take days up to the mark from history pages and later days
 * from the day candle and volume pages.
 */
import { DAY_MS, dayOf, HOUR_MS } from '../clock';
import { earliestDataAt } from '../domain/book';
import type { CandlePage } from '../domain/candles';
import type { VolumePage } from '../domain/volume-estimate';
import { compactHistory } from '../page-format/page-codec';
import { HISTORY_SHARDS, splitShards } from '../page-format/shard-layout';
import type { HistoryPage } from '../ports/market';
import type { Services } from '../services';
import { type ReadSources, readSources } from './sources';

/** Spec Uploads: a book may be observed up to 24 h before it arrives; a day is final once that has passed too. */
const LATE_BOOK_MS = DAY_MS;
/** Room for a late book's queue and merge time. */
const MERGE_GRACE_MS = 10 * 60_000;
/** Spec Retention: day points, candles and volume of days before today − 90 are deleted. */
export const KEPT_DAYS = 90;

/** The newest day no book can change any more at `now`: its end plus the 24 h an upload may lag, plus grace. */
export const finalDay = (now: number): number => dayOf(now - LATE_BOOK_MS - MERGE_GRACE_MS) - 1;

/** The newest hour no book can change any more at `now` (the same rule for hours). */
export const finalHour = (now: number): number => Math.floor((now - LATE_BOOK_MS - MERGE_GRACE_MS) / HOUR_MS) - 1;

/** The last day compacted into the market's history pages, or null before the first compaction. */
export const historyMark = (src: Pick<ReadSources, 'store'>, market: string): Promise<number | null> => src.store.historyMark(market);

export interface CompactionResult {
  /** The mark after this run (null: nothing compacted yet). */
  through: number | null;
  /** Days folded in by this run. */
  days: number[];
}

/**
 * Folds every finished day after the mark up to `throughDay` (clamped to the newest final day, so a late
 * book can never change a compacted day) into the history pages, drops days before today − 90, then moves
 * the mark. Idempotent: a day is folded by replacing it, and a run after a crash repeats the same writes.
 */
export async function compactHistories(svc: Pick<Services, 'clock' | 'market'>, market: string, throughDay: number): Promise<CompactionResult> {
  const src = readSources(svc);
  const now = svc.clock.now();
  const mark = await historyMark(src, market);
  const target = Math.min(throughDay, finalDay(now));
  const firstKept = dayOf(now) - KEPT_DAYS;
  const meta = await src.store.meta(market);
  if (meta.firstMergeAt === null) return { through: mark, days: [] };
  // The first merged book may be a day old: its day candles come before the first merge's day.
  const from = Math.max(mark === null ? dayOf(earliestDataAt(meta.firstMergeAt)) : mark + 1, firstKept);
  if (from > target) return { through: mark, days: [] };
  const days: number[] = [];
  for (let d = from; d <= target; d++) days.push(d);
  const dayPages = await Promise.all(days.map(async (d) => [d, await src.store.candlePage(market, 'd1', d), await src.store.volumePage(market, d)] as const));
  const pages = await src.store.histories(market);
  const next = foldDays(pages, dayPages, firstKept);
  // Each shard stamped with the mark it is written for: a reader holding that mark (or an older one) may then
  // trust an eventually consistent read of the shard that shows the stamp (page-cache.ts historyOf).
  await src.store.writeHistories(market, next, target);
  await src.store.putHistoryMark(market, target, now);
  return { through: target, days };
}

/** Pure: the history shards after folding `dayPages` in (days ascending) and dropping days before `firstKept`; only shards that change. */
export function foldDays(
  pages: ReadonlyMap<number, HistoryPage>,
  dayPages: ReadonlyArray<readonly [number, CandlePage, VolumePage]>,
  firstKept: number,
): Map<number, HistoryPage> {
  const split = dayPages.map(([d, candles, volume]) => [d, splitShards(candles, HISTORY_SHARDS), splitShards(volume, HISTORY_SHARDS)] as const);
  const out = new Map<number, HistoryPage>();
  for (let s = 0; s < HISTORY_SHARDS; s++) {
    const before = pages.get(s) ?? new Map();
    let page: HistoryPage = before;
    for (const [d, candles, volume] of split) page = compactHistory(page, d, candles[s], volume[s], firstKept);
    if (split.length === 0) page = compactHistory(page, -1, new Map(), new Map(), firstKept);
    if (page.size > 0 || before.size > 0) out.set(s, page);
  }
  return out;
}
