/**
 * The recent-changes file from a folded hour series (spec files-and-live: "Recent-changes file"), built with
 * recent-changes.ts's own rules but without a list of points per key: an item's changes and spark need only
 * the newest point at or before 31 hours, so each item gets just those points (the same answers, since a
 * newest-at-or-before lookup finds the same point in any sub-list holding it); basket weights are computed
 * from the window's count and quantity sum; only basket members get their whole series. Pure.
 * test/unit/files-hour-series.test.ts holds it equal to `recentChangesDoc` over every point.
 */
import { dayOf, HOUR_MS } from '../clock';
import { splitKey } from '../domain/item-key';
import type { AuctionRow } from './documents';
import { type HourSeries, keyIndex, newestAtOrBefore } from './hour-series';
import {
  BASKET_SIZE,
  type BasketItem,
  type Category,
  categoryBaskets,
  categoryOf,
  chainIndex,
  changesOf,
  FAIR_DAYS,
  fairPrice,
  type HourPoint,
  heaviest,
  INDEX_HOURS,
  type ItemClass,
  MIN_WINDOW_CANDLES,
  type RecentChangesFile,
  type RecentItem,
  type Series,
  SPARK_POINTS,
  SPARK_STEP_HOURS,
  sparkOf,
  weightOf,
} from './recent-changes';

export interface RecentBuildInput {
  market: string;
  hour: number;
  /** The hourly snapshot's rows as of the hour's start. */
  rows: readonly AuctionRow[];
  series: HourSeries;
  classOf: (itemId: number) => ItemClass | undefined;
}

/** Hours whose newest point at or before them `changesOf` and `sparkOf` read. */
function lookupHours(hour: number): number[] {
  const out = [hour - 2, hour - 25, hour - INDEX_HOURS - 1];
  for (let i = 1; i <= SPARK_POINTS; i++) out.push(hour - INDEX_HOURS + SPARK_STEP_HOURS * i - 1);
  return [...new Set(out)].sort((a, b) => a - b);
}

const pointAt = (s: HourSeries, j: number): HourPoint => [s.hour[j], s.close[j], s.quantity[j]];

/** Key `i`'s points that answer every lookup, ascending. */
function lookupPoints(s: HourSeries, i: number, hours: readonly number[]): HourPoint[] {
  const out: HourPoint[] = [];
  let last = -1;
  for (const h of hours) {
    const j = newestAtOrBefore(s, i, h);
    if (j >= 0 && j !== last) {
      out.push(pointAt(s, j));
      last = j;
    }
  }
  return out;
}

function allPoints(s: HourSeries, i: number): HourPoint[] {
  const out: HourPoint[] = [];
  for (let j = s.start[i]; j < s.start[i + 1]; j++) out.push(pointAt(s, j));
  return out;
}

/** Keys handled between two pauses of a build (see `buildRecentFile`). */
const STEP = 2000;

/** Basket candidates as `basketCandidates` finds them (at least 5 window candles, a positive weight); points attached later. */
async function candidates(input: RecentBuildInput, pause: () => Promise<void>): Promise<BasketItem[]> {
  const { series: s, hour } = input;
  const first = hour - INDEX_HOURS;
  const day = dayOf(hour * HOUR_MS);
  const prices = new Map<number, number | null>(input.rows.map((r) => [r[0], r[1]]));
  const out: BasketItem[] = [];
  for (let i = 0; i < s.keys.length; i++) {
    if (i % STEP === STEP - 1) await pause();
    // Points are ascending by hour and none is at or after `hour`: the window is a tail.
    const end = newestAtOrBefore(s, i, hour - 1) + 1;
    const begin = newestAtOrBefore(s, i, first - 1) + 1 || s.start[i];
    const count = end - begin;
    if (count < MIN_WINDOW_CANDLES) continue;
    let sum = 0;
    for (let j = begin; j < end; j++) sum += s.quantity[j];
    const key = s.keys[i];
    const fair = fairPrice(s.days.get(key), day, prices.get(key));
    if (fair === null) continue;
    const sold = (s.sold.get(key) ?? []).filter((e) => e[0] >= day - FAIR_DAYS && e[0] < day).map((e) => e[1]);
    // The window's mean quantity stands in for sold per day exactly as `weightOf` computes it.
    const perDay = sold.length ? sold.reduce((a, x) => a + x, 0) / sold.length : sum / count;
    const weight = weightOf(fair, perDay, []);
    if (!(weight > 0) || !Number.isFinite(weight)) continue;
    out.push({ key, weight, category: categoryOf(input.classOf(splitKey(key).item)), points: [] });
  }
  return out;
}

/** The chain-linked series of a basket, its members given their whole series. */
function indexOf(s: HourSeries, basket: readonly BasketItem[], hour: number): Series {
  return chainIndex(
    basket.map((m) => ({ ...m, points: allPoints(s, keyIndex(s, m.key)) })),
    hour,
  );
}

/**
 * The recent-changes file `{v: 1, market, at, items, index, categories}`. `pause` is awaited every few
 * thousand keys: the snapshot job lets its event loop turn there, so the series upload it has started keeps
 * moving while the file is built (a whole market takes a few hundred ms). The file does not depend on it.
 */
export async function buildRecentFile(input: RecentBuildInput, pause: () => Promise<void> = async () => {}): Promise<RecentChangesFile> {
  const { series: s, hour } = input;
  const hours = lookupHours(hour);
  const rows = [...input.rows].sort((a, b) => a[0] - b[0]);
  const items: RecentItem[] = [];
  for (const [key, price, quantity] of rows) {
    if (items.length % STEP === STEP - 1) await pause();
    const i = keyIndex(s, key);
    const points = i < 0 ? [] : lookupPoints(s, i, hours);
    items.push([key, price, quantity, ...changesOf(price, points, hour), sparkOf(points, hour)]);
  }
  const all = await candidates(input, pause);
  const categories = {} as Record<Category, Series>;
  for (const [c, basket] of categoryBaskets(all)) {
    categories[c] = indexOf(s, basket, hour);
    await pause();
  }
  return { v: 1, market: input.market, at: hour * HOUR_MS, items, index: indexOf(s, heaviest(all, BASKET_SIZE), hour), categories };
}
