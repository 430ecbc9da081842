/**
 * The recent-changes file: per-item changes and sparklines, and the chain-linked market and category index
 * series (spec files-and-live: "Recent-changes file"). Pure: every input is passed in.
 */
import { dayOf, HOUR_MS } from '../clock';
import { splitKey } from '../domain/item-key';
import type { AuctionRow, VolumeEstimate } from './documents';

/** `[hour, close, quantity]` of one finished hour candle (hour = floor(ms / 3600000)). */
export type HourPoint = readonly [hour: number, close: number, quantity: number];
/** `[day, close]` of one day candle. */
export type DayClosePoint = readonly [day: number, close: number];

export interface ItemClass {
  /** Item class (`c` of the item data). */
  c: number;
  /** Item subclass (`sc`). */
  sc: number;
}

export const CATEGORIES = ['herbs', 'ore', 'cloth', 'leather', 'enchanting', 'elemental', 'consumables', 'gear'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Hours of the index window: H-168 … H-1. */
export const INDEX_HOURS = 168;
/** A missing hour takes the newest close of up to this many hours back. */
export const CARRY_HOURS = 72;
/** Hour candles an item needs in the window to join a basket. */
export const MIN_WINDOW_CANDLES = 5;
export const BASKET_SIZE = 50;
export const CATEGORY_BASKET_SIZE = 20;
/** Each hour's log return is clipped to ±ln 3. */
export const MAX_LOG_RETURN = Math.log(3);
/** Day closes `fair` is the lower median of. */
export const FAIR_DAYS = 7;
export const SPARK_POINTS = 28;
export const SPARK_STEP_HOURS = 6;

export interface RecentChangesInput {
  market: string;
  /** H: the hour whose start is the file's `at`. */
  hour: number;
  /** The hourly snapshot's rows as of `at`. */
  rows: readonly AuctionRow[];
  /**
   * Finished hour candles per key, before H: at least hours H-240 … H-1 (the index window and its 72-hour
   * carry); older ones only serve `ch7d` and the spark's first windows.
   */
  hours: ReadonlyMap<number, readonly HourPoint[]>;
  /** Day candle closes per key; only days before `at`'s day are used. */
  dayCloses: ReadonlyMap<number, readonly DayClosePoint[]>;
  /** Volume estimates per key, when the market has any. */
  volume?: ReadonlyMap<number, readonly VolumeEstimate[]>;
  /** Class and subclass of an item id (a key's item, suffix and species aside). */
  classOf: (itemId: number) => ItemClass | undefined;
}

export type RecentItem = [
  key: number,
  price: number | null,
  quantity: number,
  ch1h: number | null,
  ch24h: number | null,
  ch7d: number | null,
  spark: (number | null)[],
];

export type Series = [hour: number, value: number][];

export interface RecentChangesFile {
  v: 1;
  market: string;
  at: number;
  items: RecentItem[];
  index: Series;
  categories: Record<Category, Series>;
}

/** Rounds half away from zero to `digits` decimals, ignoring binary noise below 12 significant digits. */
export function roundTo(x: number, digits: number): number {
  const f = 10 ** digits;
  const r = Math.round(Number((Math.abs(x) * f).toPrecision(12))) / f;
  return r === 0 ? 0 : Math.sign(x) * r;
}

/** The category of an item class: herbs 7/9, ore 7/7, cloth 7/5, leather 7/6, enchanting 7/12, elemental 7/10, consumables 0, gear 2 and 4 (spec: Recent-changes file). */
export function categoryOf(cls: ItemClass | undefined): Category | null {
  if (!cls) return null;
  if (cls.c === 0) return 'consumables';
  if (cls.c === 2 || cls.c === 4) return 'gear';
  if (cls.c !== 7) return null;
  switch (cls.sc) {
    case 9:
      return 'herbs';
    case 7:
      return 'ore';
    case 5:
      return 'cloth';
    case 6:
      return 'leather';
    case 12:
      return 'enchanting';
    case 10:
      return 'elemental';
    default:
      return null;
  }
}

/** The lower median: the middle value, or the lower of the two middle ones (spec: `fair`). */
export function lowerMedian(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * `(price - then) / then` rounded to 4 decimals (half away from zero), null when either is missing (spec:
 * `chNh`). Exact for every price 0..2^53-1: the rounding is done on integers, so a ratio a hair below a half
 * never rounds up (the double quotient cannot tell them apart near 2^53).
 */
export function change(price: number | null, then: number | undefined): number | null {
  if (price === null || then === undefined || !(then > 0)) return null;
  const diff = price - then;
  const scaled = Math.abs(diff) * 10_000;
  if (scaled <= Number.MAX_SAFE_INTEGER) {
    // `%` of doubles is exact, and so is the quotient of the remainder-free dividend.
    const rest = scaled % then;
    const units = (scaled - rest) / then + (rest * 2 >= then ? 1 : 0);
    return units === 0 ? 0 : (diff < 0 ? -units : units) / 10_000;
  }
  return bigChange(diff, then);
}

/** `change` for differences past 9 × 10^11 copper: BigInt, then the decimal's nearest double. */
function bigChange(diff: number, then: number): number {
  const scaled = BigInt(Math.abs(diff)) * 10_000n;
  const t = BigInt(then);
  const units = scaled / t + ((scaled % t) * 2n >= t ? 1n : 0n);
  const digits = units.toString().padStart(5, '0');
  const text = `${diff < 0 ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`;
  return Number(text);
}

const sortHours = (list: readonly HourPoint[]): HourPoint[] => [...list].sort((a, b) => a[0] - b[0]);

/** The newest point of a list ascending by hour whose hour is at most `hour`. */
function newestAtOrBefore(sorted: readonly HourPoint[], hour: number): HourPoint | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid][0] <= hour) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1] : undefined;
}

/**
 * ch1h, ch24h, ch7d: against the close of the newest candle that started more than 1 h / 24 h / 7 d before
 * `at`, i.e. of an hour at most H-2 / H-25 / H-169 (spec: `chNh`).
 */
export function changesOf(price: number | null, sorted: readonly HourPoint[], hour: number): [number | null, number | null, number | null] {
  const then = (hoursBack: number) => newestAtOrBefore(sorted, hour - hoursBack - 1)?.[1];
  return [change(price, then(1)), change(price, then(24)), change(price, then(INDEX_HOURS))];
}

/** 28 closes, one per 6-hour window of the 7 days before `at`: the newest close up to each window's end, null before the first (spec: `spark`). */
export function sparkOf(sorted: readonly HourPoint[], hour: number): (number | null)[] {
  const out: (number | null)[] = [];
  for (let i = 1; i <= SPARK_POINTS; i++) {
    const end = hour - INDEX_HOURS + SPARK_STEP_HOURS * i;
    out.push(newestAtOrBefore(sorted, end - 1)?.[1] ?? null);
  }
  return out;
}

export interface BasketItem {
  key: number;
  weight: number;
  category: Category | null;
  /** The item's hour candles, ascending by hour. */
  points: readonly HourPoint[];
}

/**
 * The index's weight of an item: sqrt(fair × sold per day), with the mean listed quantity of the window's
 * candles in place of sold per day when the item has no volume estimate (spec: index rule).
 */
export function weightOf(fair: number, soldPerDay: number | undefined, windowQuantities: readonly number[]): number {
  const perDay = soldPerDay ?? (windowQuantities.length ? windowQuantities.reduce((s, q) => s + q, 0) / windowQuantities.length : 0);
  return Math.sqrt(fair * perDay);
}

/** Items that may join a basket: at least 5 hour candles in H-168 … H-1 and a positive weight (spec: index rule). */
export function basketCandidates(input: RecentChangesInput): BasketItem[] {
  const first = input.hour - INDEX_HOURS;
  const day = dayOf(input.hour * HOUR_MS);
  const prices = new Map<number, number | null>(input.rows.map((r) => [r[0], r[1]]));
  const out: BasketItem[] = [];
  for (const [key, list] of input.hours) {
    const points = sortHours(list);
    const inWindow = points.filter((p) => p[0] >= first && p[0] < input.hour);
    if (inWindow.length < MIN_WINDOW_CANDLES) continue;
    const fair = fairPrice(input.dayCloses.get(key), day, prices.get(key));
    if (fair === null) continue;
    const sold = (input.volume?.get(key) ?? []).filter((e) => e[0] >= day - FAIR_DAYS && e[0] < day).map((e) => e[2]);
    const soldPerDay = sold.length ? sold.reduce((s, x) => s + x, 0) / sold.length : undefined;
    const weight = weightOf(
      fair,
      soldPerDay,
      inWindow.map((p) => p[2]),
    );
    if (!(weight > 0) || !Number.isFinite(weight)) continue;
    out.push({ key, weight, category: categoryOf(input.classOf(splitKey(key).item)), points });
  }
  return out;
}

/**
 * An item's fair price for the index: the lower median of its newest FAIR_DAYS day closes before `day`
 * (`[day, close, …]`), else `fallback` (its price now), else null (spec: index rule).
 */
export function fairPrice(
  dayCloses: ReadonlyArray<readonly [number, number, ...unknown[]]> | undefined,
  day: number,
  fallback: number | null | undefined,
): number | null {
  const closes = [...(dayCloses ?? [])]
    .filter((d) => d[0] < day)
    .sort((a, b) => b[0] - a[0])
    .slice(0, FAIR_DAYS)
    .map((d) => d[1]);
  return lowerMedian(closes) ?? fallback ?? null;
}

/** The `size` heaviest items, ties to the lower key (spec: basket). */
export function heaviest(items: readonly BasketItem[], size: number): BasketItem[] {
  return [...items].sort((a, b) => b.weight - a.weight || a.key - b.key).slice(0, size);
}

/** Each category's basket: its `CATEGORY_BASKET_SIZE` heaviest candidates (spec: category indices). */
export function categoryBaskets(candidates: readonly BasketItem[]): Array<[Category, BasketItem[]]> {
  return CATEGORIES.map((c) => [
    c,
    heaviest(
      candidates.filter((m) => m.category === c),
      CATEGORY_BASKET_SIZE,
    ),
  ]);
}

/** Each hour of the window: the newest close of that hour or up to 72 hours back, else undefined. */
function carriedPrices(points: readonly HourPoint[], hour: number): (number | undefined)[] {
  const first = hour - INDEX_HOURS;
  const out: (number | undefined)[] = [];
  for (let h = first; h < hour; h++) {
    const p = newestAtOrBefore(points, h);
    out.push(p && p[0] >= h - CARRY_HOURS ? p[1] : undefined);
  }
  return out;
}

/**
 * A chain-linked series from H-168 (100) to H-1: each hour the value moves by exp of the weighted mean of
 * the basket's log returns against the hour before, each clipped to ±ln 3; values rounded to 3 decimals
 * (spec: index rule). An hour where no member has both prices keeps the value.
 */
export function chainIndex(basket: readonly BasketItem[], hour: number): Series {
  const first = hour - INDEX_HOURS;
  const prices = basket.map((m) => carriedPrices(m.points, hour));
  const out: Series = [[first, 100]];
  let value = 100;
  for (let j = 1; j < INDEX_HOURS; j++) {
    let sum = 0;
    let weights = 0;
    basket.forEach((m, i) => {
      const before = prices[i][j - 1];
      const now = prices[i][j];
      if (before === undefined || now === undefined) return;
      const r = Math.max(-MAX_LOG_RETURN, Math.min(MAX_LOG_RETURN, Math.log(now / before)));
      sum += m.weight * r;
      weights += m.weight;
    });
    if (weights > 0) value *= Math.exp(sum / weights);
    out.push([first + j, roundTo(value, 3)]);
  }
  return out;
}

/** The recent-changes file `{v: 1, market, at, items, index, categories}` (spec: Recent-changes file). */
export function recentChangesDoc(input: RecentChangesInput): RecentChangesFile {
  const { hour } = input;
  const sorted = new Map<number, HourPoint[]>();
  const pointsOf = (key: number): HourPoint[] => {
    let s = sorted.get(key);
    if (!s) {
      s = sortHours(input.hours.get(key) ?? []);
      sorted.set(key, s);
    }
    return s;
  };
  const items: RecentItem[] = [...input.rows]
    .sort((a, b) => a[0] - b[0])
    .map(([key, price, quantity]) => {
      const points = pointsOf(key);
      return [key, price, quantity, ...changesOf(price, points, hour), sparkOf(points, hour)];
    });
  const candidates = basketCandidates(input);
  const categories = {} as Record<Category, Series>;
  for (const [c, basket] of categoryBaskets(candidates)) categories[c] = chainIndex(basket, hour);
  return { v: 1, market: input.market, at: hour * HOUR_MS, items, index: chainIndex(heaviest(candidates, BASKET_SIZE), hour), categories };
}
