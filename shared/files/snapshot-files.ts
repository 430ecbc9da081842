/**
 * The hourly files (spec files-and-live: Public files): `snap/v1/<market>/<hour>.json.gz` (the hourly snapshot
 * as of the hour's start, immutable), `recent/v1/<market>/<hour>.json.gz` (recent changes and index series,
 * immutable) and their `latest.json` pointers (60 s), rewritten on every run so they never point at a file
 * retention deleted. Written for markets with data; a run writes the current hour only (catching up means
 * the current hour, never the missed ones).
 */
import { dayOf, HOUR_MS } from '../clock';
import { recentLatestPath, recentPath, snapshotLatestPath, snapshotPath } from '../domain/file-paths';
import { MARKETS } from '../domain/market';
import { RETAINED_HOURS } from '../domain/retention';
import { currentItemFiles, itemFileOf } from '../items/read';
import { buildHourlySnapshot } from '../market/hourly-view';
import type { CandleCloses } from '../page-format/page-closes';
import { ALL_PAGE_SHARDS, PAGE_SHARDS } from '../page-format/shard-layout';
import type { MarketPages } from '../ports/market';
import type { Services } from '../services';
import { latestPointerDoc } from './documents';
import { fileSize, putJsonFile } from './file-store';
import { readHourCloses } from './hour-closes';
import { decodeSeries, emptySeries, encodeSeries, foldDays, foldHours, type HourSeries } from './hour-series';
import { blockShard, foldHoursCold, foldShardRuns, joinShards } from './hour-series-cold';
import { inParallel } from './in-parallel';
import { buildRecentFile } from './recent-build';
import type { ItemClass } from './recent-changes';
import { getWorkObject, putWorkObject, seriesKey } from './work-store';

/**
 * Hours of points the series keeps whole before H: the 168-hour index window. The recent file looks a key
 * up at hours H-169 … H-1 only (ch7d's H-169 and the window), each time for its newest point at or before
 * the hour; foldHours also keeps each key's newest point before H-168 (inside retention), which answers every
 * lookup before the window (the 72-hour carry, ch7d) exactly. Points older than that answer none, so a
 * longer window (240 hours before) only made the series 40 % bigger.
 */
export const SERIES_HOURS = 168;
/** The newest periods are read again on every run: a late book can still change them. */
const REFOLD_HOURS = 2;
const REFOLD_DAYS = 1;
/** A cold series reads at most this many day pages to find each item's newest 7 day closes. */
const COLD_DAYS = 30;

export interface WrittenSnapshot {
  market: string;
  /** The hour's start. */
  at: number;
  /** Stored size of the snapshot file. */
  bytes: number;
}

/** One turn of the event loop (I/O callbacks run before it resolves). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const range = (first: number, last: number): number[] => (first > last ? [] : Array.from({ length: last - first + 1 }, (_, i) => first + i));

/**
 * A cold series' hours (nothing stored: every retained hour page of the market). Read key shard by key shard,
 * each shard folded as soon as its pages arrive, so the fold overlaps the reads and only a few shards' pages
 * are held at once. Equal to `foldHoursCold` over the whole hour pages (test/unit/files-snapshot-cold-read.test.ts),
 * which it falls back to when a shard read answers a page of another layout (the store's PAGE_SHARDS is part
 * of the stored format and never changes in place, so pages stored under other shard keys are not looked for).
 */
async function coldHours(store: MarketPages, market: string, hours: readonly number[], hour: number): Promise<HourSeries> {
  const keepFrom = hour - SERIES_HOURS;
  const retainFrom = hour - RETAINED_HOURS;
  const shards = await inParallel(ALL_PAGE_SHARDS, async (shard) => {
    const read = await store.candleClosesOfShard(market, 'h1', hours, shard);
    // A page without keys says nothing of its layout (an empty shard is written with residue 0).
    const inLayout = (run: CandleCloses) => run.keys.length === 0 || (run.shards === PAGE_SHARDS && run.residue === shard);
    if ('block' in read) return inLayout(read.block) ? blockShard(read.block, keepFrom, retainFrom) : undefined;
    const runs: Array<readonly [number, CandleCloses]> = [];
    for (const h of hours) {
      const run = read.runs.get(h);
      if (!run) continue;
      if (!inLayout(run)) return undefined;
      runs.push([h, run]);
    }
    return foldShardRuns(runs, keepFrom, retainFrom);
  });
  if (shards.some((s) => s === undefined))
    return foldHoursCold(await inParallel(hours, async (h) => [h, await readHourCloses(store, market, h)] as const), keepFrom, retainFrom);
  return joinShards(shards as Array<ReturnType<typeof foldShardRuns>>, hours.length > 0 ? hours[hours.length - 1] : null);
}

/** The series folded up to hour H-1 and day D-1 (H = `hour`, D its day); `moved` when it must be stored back. */
export async function seriesFor(
  svc: Pick<Services, 'work' | 'log'>,
  store: MarketPages,
  market: string,
  hour: number,
  firstMergeAt: number,
): Promise<{ series: HourSeries; moved: boolean }> {
  const stored = await getWorkObject(svc, seriesKey(market));
  let series = emptySeries();
  if (stored) {
    try {
      series = decodeSeries(stored);
    } catch (err) {
      svc.log('warn', 'recent series unreadable; rebuilt', { market, error: err instanceof Error ? err.message : String(err) });
    }
  }
  const firstHour = Math.max(Math.floor(firstMergeAt / HOUR_MS), hour - RETAINED_HOURS);
  const hoursFrom = series.hourThrough === null ? firstHour : Math.max(firstHour, Math.min(series.hourThrough + 1, hour - REFOLD_HOURS));
  const hours = range(hoursFrom, hour - 1);
  const day = dayOf(hour * HOUR_MS);
  const firstDay = Math.max(dayOf(firstMergeAt), day - COLD_DAYS);
  const daysFrom = series.dayThrough === null ? firstDay : Math.max(firstDay, Math.min(series.dayThrough + 1, day - REFOLD_DAYS));
  const days = range(daysFrom, day - 1);
  const cold = series.hourThrough === null && series.keys.length === 0;
  const stale = series;
  const foldedHours = async () =>
    cold
      ? coldHours(store, market, hours, hour)
      : foldHours(
          stale,
          await inParallel(hours, async (h) => [h, await readHourCloses(store, market, h)] as const),
          hour - SERIES_HOURS,
          hour - RETAINED_HOURS,
        );
  // foldDays keeps sold volume of the 7 days before D only: older days' volume pages are not read.
  const soldFrom = day - 7;
  const [folded, dayPages] = await Promise.all([
    foldedHours(),
    inParallel(days, async (d) => {
      // Closes only: no Candle object per key and day.
      const [candles, volume] = await Promise.all([store.candleCloses(market, 'd1', d), d >= soldFrom ? store.volumePage(market, d) : new Map()]);
      const closes = new Map<number, number>();
      for (const run of candles) for (let i = 0; i < run.keys.length; i++) closes.set(run.keys[i], run.close[i]);
      const sold = new Map<number, number>();
      for (const [key, v] of volume) sold.set(key, v[1]);
      return [d, closes, sold] as const;
    }),
  ]);
  series = foldDays(folded, dayPages, soldFrom);
  return { series, moved: hours.length > 0 || days.length > 0 };
}

/** Class and subclass per item id from the current item data (none before item data is published). */
async function itemClasses(svc: Pick<Services, 'config' | 'catalogue' | 'files' | 'log'>): Promise<(itemId: number) => ItemClass | undefined> {
  try {
    const ref = await currentItemFiles(svc);
    if (!ref) return () => undefined;
    const file = await itemFileOf(svc, ref);
    return (id) => {
      const item = file.items[String(id)];
      return item && typeof item.c === 'number' && typeof item.sc === 'number' ? { c: item.c, sc: item.sc } : undefined;
    };
  } catch (err) {
    svc.log('warn', 'item data unreadable; the index has no categories this hour', { error: err instanceof Error ? err.message : String(err) });
    return () => undefined;
  }
}

/**
 * Writes one market's snapshot and recent-changes files of `hour` (immutable files only once) and both
 * pointers; null for a market without data. Answers the snapshot file and its stored size. The snapshot is
 * built while the series is read and folded, and the series is stored back while the recent file is built.
 */
export async function writeSnapshotFiles(
  svc: Pick<Services, 'config' | 'clock' | 'catalogue' | 'market' | 'files' | 'work' | 'log'>,
  market: string,
  hour: number,
): Promise<WrittenSnapshot | null> {
  const store = svc.market.pages;
  const meta = await store.meta(market);
  if (meta.firstMergeAt === null) return null;
  const path = snapshotPath(market, hour);
  const recent = recentPath(market, hour);
  const [snapBytes, recentBytes] = await Promise.all([fileSize(svc, path), fileSize(svc, recent)]);
  let bytes = snapBytes ?? 0;
  if (snapBytes === null || recentBytes === null) {
    const built = buildHourlySnapshot(svc, market, hour);
    // The snapshot file is written as soon as it is built (its gzip runs on the thread pool while the series
    // is still folding), not after the series.
    const snapshotWritten =
      snapBytes === null
        ? built.then(async (snapshot) => {
            bytes = await putJsonFile(svc, path, snapshot);
          })
        : Promise.resolve();
    // Awaited below; handled here too, so a failure while the series is still read is not an unhandled rejection.
    snapshotWritten.catch(() => undefined);
    const [snapshot, folded, classOf] = await Promise.all([
      built,
      recentBytes === null ? seriesFor(svc, store, market, hour, meta.firstMergeAt) : null,
      recentBytes === null ? itemClasses(svc) : null,
    ]);
    const writes: Array<Promise<unknown>> = [snapshotWritten];
    if (folded && classOf) {
      // The series' upload (megabytes) moves only while the event loop turns: it starts first, and the recent
      // file is built in steps that let the loop turn between them.
      if (folded.moved) writes.push(putWorkObject(svc, seriesKey(market), encodeSeries(folded.series)));
      const file = buildRecentFile({ market, hour, rows: snapshot.rows, series: folded.series, classOf }, turn);
      writes.push(file.then((doc) => putJsonFile(svc, recent, doc)));
    }
    await Promise.all(writes);
  }
  await Promise.all([
    putJsonFile(svc, snapshotLatestPath(market), latestPointerDoc(market, hour, path)),
    putJsonFile(svc, recentLatestPath(market), latestPointerDoc(market, hour, recent)),
  ]);
  await svc.market.filesState.recordSnapshotHour(market, hour);
  return { market, at: hour * HOUR_MS, bytes };
}

/** The snapshot schedule and the admin route: every market with data, the current hour. */
export async function writeAllSnapshots(
  svc: Pick<Services, 'config' | 'clock' | 'catalogue' | 'market' | 'files' | 'work' | 'log'>,
): Promise<WrittenSnapshot[]> {
  const hour = Math.floor(svc.clock.now() / HOUR_MS);
  const written: WrittenSnapshot[] = [];
  for (const market of MARKETS) {
    try {
      const w = await writeSnapshotFiles(svc, market, hour);
      if (w) written.push(w);
    } catch (err) {
      svc.log('error', 'snapshot files failed for a market', { market, error: err instanceof Error ? err.stack : String(err) });
    }
  }
  return written;
}
