/**
 * The hourly view (spec Freshness): the market as of `cut`, the top of the hour. Nothing read at or after cut
 * shows: a row read after cut is answered with the item's newest candle before it (the day so far from hour
 * candles, else the newest earlier day point; an item marked gone after cut so shows its last listing), and
 * cut's own day is rebuilt from its hour candles before cut. Also builds the hourly snapshot document.
 */
import { DAY_MS, dayOf, HOUR_MS } from '../clock';
import type { CandlePage } from '../domain/candles';
import type { AuctionRow } from '../domain/merge';
import { type DayClose, type HourlySnapshot, hourlySnapshotDoc } from '../files/documents';
import type { Services } from '../services';
import { ALL_SHARDS, daySoFar, pageShardOf } from './day-so-far';
import { type ItemDays, itemDays, range } from './item-read';
import { type ReadSources, readSources } from './sources';
import { HOURLY_VIEW_MS, type Reading, readingBefore, rowAsOf } from './view-rules';

/**
 * How far back an item's newest reading before the cut is looked for: all kept day points (spec Retention).
 * Further than the view's 30 days, because a listing older than that may have been marked gone within them.
 */
const LOOKBACK_DAYS = 90;

/**
 * `at`s of complete scans with items merged between `after` and `cut` (exclusive), ascending: each marked
 * every row it lacked as gone (spec Merge rule 1), so the newest one after an item's reading decides.
 */
export async function goneScanTimes(src: ReadSources, market: string, after: number, cut: number): Promise<number[]> {
  if (after + 1 > cut - 1) return [];
  const entries = await src.scans.between(market, after + 1, cut - 1);
  return entries
    .filter((e) => e.complete && e.items > 0)
    .map((e) => e.at)
    .sort((a, b) => a - b);
}

/** Spec Hourly snapshot `scan`: the newest scan read before `cut` and merged by then, or null when the log holds none. */
export async function newestScanBefore(src: ReadSources, market: string, cut: number): Promise<number | null> {
  // Most markets scan every few minutes: look at the last day first, the whole kept log only when that is empty.
  for (const span of [DAY_MS, HOURLY_VIEW_MS]) {
    const entries = await src.scans.between(market, cut - span, cut - 1);
    let newest: number | null = null;
    for (const e of entries) if (e.mergedAt <= cut && (newest === null || e.at > newest)) newest = e.at;
    if (newest !== null) return newest;
  }
  return null;
}

/** One item as of `cut`: its row, its day candles of `firstDay..` cut's day (that day rebuilt), and volume of finished days. */
export interface ItemAsOf {
  row: AuctionRow | null;
  days: ItemDays;
}

/** Spec Freshness for one item, reading only the item's shards. */
export async function itemAsOf(src: ReadSources, market: string, key: number, cut: number, firstDay: number, withVolume: boolean): Promise<ItemAsOf> {
  const today = dayOf(cut);
  const [rows, days, soFarPage] = await Promise.all([
    src.store.rowsOf(market, [key]),
    itemDays(src, market, key, firstDay, today - 1, withVolume),
    daySoFar(src, market, cut, [pageShardOf(key)]),
  ]);
  const soFar = soFarPage.get(key);
  const row = rows.get(key);
  let before: Reading | undefined;
  if (row && row.at >= cut) {
    before = readingBefore(cut, soFar, days.candles);
    // The answer's window may be shorter than the days a reading is kept.
    if (!before && firstDay > today - LOOKBACK_DAYS) {
      const older = await itemDays(src, market, key, today - LOOKBACK_DAYS, firstDay - 1, false);
      before = readingBefore(cut, undefined, older.candles);
    }
  }
  const gone = before ? await goneScanTimes(src, market, before.at, cut) : [];
  if (soFar) days.candles.set(today, soFar);
  return { row: rowAsOf(key, row, before, gone, cut), days };
}

/** The whole market as of `cut`: rows under the hourly view rule, plus the day so far it was rebuilt from. */
export interface TableAsOf {
  rows: Map<number, AuctionRow>;
  daySoFar: CandlePage;
}

/** Spec Freshness for every row of a market (the hourly table, the snapshot file, market summaries). */
export async function tableAsOf(src: ReadSources, market: string, cut: number): Promise<TableAsOf> {
  const [rows, soFar] = await Promise.all([src.store.rows(market), daySoFar(src, market, cut, ALL_SHARDS)]);
  const before = new Map<number, Reading>();
  const unresolved = new Set<number>();
  for (const [key, row] of rows) {
    if (row.at < cut) continue;
    const reading = readingBefore(cut, soFar.get(key), []);
    if (reading) before.set(key, reading);
    else unresolved.add(key);
  }
  // Rows first read after cut with nothing earlier today: their newest earlier day point, newest day first.
  const today = dayOf(cut);
  for (let day = today - 1; day >= today - LOOKBACK_DAYS && unresolved.size > 0; day -= 8) {
    const days = range(Math.max(today - LOOKBACK_DAYS, day - 7), day).reverse();
    const pages = await Promise.all(days.map((d) => src.store.candlePage(market, 'd1', d)));
    days.forEach((d, i) => {
      for (const key of [...unresolved]) {
        const c = pages[i].get(key);
        if (!c) continue;
        const reading = readingBefore(cut, undefined, [[d, c]]);
        if (reading) before.set(key, reading);
        unresolved.delete(key);
      }
    });
  }
  let oldest = Number.POSITIVE_INFINITY;
  for (const r of before.values()) if (r.at < oldest) oldest = r.at;
  const gone = before.size > 0 ? await goneScanTimes(src, market, oldest, cut) : [];
  const out = new Map<number, AuctionRow>();
  for (const [key, row] of rows) {
    const r = rowAsOf(key, row, before.get(key), gone, cut);
    if (r) out.set(key, r);
  }
  return { rows: out, daySoFar: soFar };
}

/**
 * Spec Hourly snapshot `{v, market, at, scan, rows, days, now}` as of `hour`'s start: rows under the hourly
 * view rule, daily closes and quantities of the 7 days before at's day plus that day so far from hour
 * candles before `at`, and `scan` the newest scan merged by then (else the newest row's reading).
 */
export async function buildHourlySnapshot(svc: Pick<Services, 'clock' | 'market'>, market: string, hour: number): Promise<HourlySnapshot> {
  const src = readSources(svc);
  const at = hour * HOUR_MS;
  const today = dayOf(at);
  const earlier = range(today - 7, today - 1);
  const [table, pages, scan] = await Promise.all([
    tableAsOf(src, market, at),
    // Closes and quantities only (the pages' heads): no Candle object per key and day.
    Promise.all(earlier.map((d) => src.store.candleCloses(market, 'd1', d))),
    newestScanBefore(src, market, at),
  ]);
  const days = new Map<number, DayClose[]>();
  const add = (key: number, point: DayClose) => {
    const list = days.get(key);
    if (list) list.push(point);
    else days.set(key, [point]);
  };
  earlier.forEach((d, i) => {
    for (const run of pages[i]) for (let k = 0; k < run.keys.length; k++) add(run.keys[k], [d, run.close[k], run.quantity[k]]);
  });
  for (const [key, c] of table.daySoFar) add(key, [today, c.close, c.quantity]);
  let newestRow: number | null = null;
  for (const r of table.rows.values()) if (newestRow === null || r[3] > newestRow) newestRow = r[3];
  return hourlySnapshotDoc({ market, hour, scan: scan ?? newestRow, rows: [...table.rows.values()], days, now: svc.clock.now() });
}
