/**
 * Market alerts (spec: "Watchlist, alerts, boards", the Alert state table and "Alert evaluation"). Pure:
 * the conditions of every kind, `ref` and `fair`, and the transitions of one evaluation.
 */
import { DAY_MS } from '../clock';

export const ALERT_KINDS = ['below', 'above', 'rise', 'fall', 'supplyBelow', 'supplyAbove', 'deal'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** A single-item alert fires at most once per hour. */
export const ALERT_REPEAT_MS = 3_600_000;
/** A deal alert lists at most 20 hits per firing. */
export const DEAL_HITS_MAX = 20;
export const ALERT_NAME_MAX = 80;
export const ALERT_NOTE_MAX = 200;
/** `fair` needs at least 3 of the newest 7 day candles, all within the 30 days before the evaluation's day. */
const FAIR_CANDLES = 7;
const FAIR_MIN = 3;
const FAIR_WINDOW_DAYS = 30;

const MAX_COPPER = Number.MAX_SAFE_INTEGER;
const MAX_QUANTITY = 2 ** 31 - 1;

/** Allowed `value` per kind (inclusive). */
export const VALUE_RANGE: Record<AlertKind, readonly [number, number]> = {
  below: [1, MAX_COPPER],
  above: [1, MAX_COPPER],
  rise: [1, 1000],
  fall: [1, 99],
  supplyBelow: [0, MAX_QUANTITY],
  supplyAbove: [1, MAX_QUANTITY],
  deal: [1, 99],
};

/** `[item, price or null, quantity]`. */
export type AlertHit = [item: number, price: number | null, quantity: number];

export interface MarketAlertInput {
  market: string;
  /** An item key, or 0 for a whole-market `deal`. */
  item: number;
  kind: AlertKind;
  value: number;
  name?: string;
  note?: string;
  enabled: boolean;
}

export interface MarketAlert extends MarketAlertInput {
  id: string;
  created: number;
  armed: boolean;
  last: { at: number; hits: AlertHit[] } | null;
}

/** A row as alerts see it: `[price, quantity, at]`. */
export interface RowReading {
  price: number | null;
  quantity: number;
  at: number;
}

/** A day candle's close: `[day, close]`. */
export type DayClose = readonly [day: number, close: number];

/** True for a whole-market deal alert (`item` 0); every other alert is a single-item alert. */
export const isMarketWide = (a: Pick<MarketAlertInput, 'item'>): boolean => a.item === 0;

/** A new alert: armed (DESIGN), never fired. */
export const newAlert = (input: MarketAlertInput, id: string, created: number): MarketAlert => ({ ...input, id, created, armed: true, last: null });

/** `PUT /alerts/:id`: the input replaces the alert, which is armed again; `last` is kept (the deal set is forgotten by the caller). */
export const replaceAlert = (old: MarketAlert, input: MarketAlertInput): MarketAlert => ({
  ...input,
  id: old.id,
  created: old.created,
  armed: true,
  last: old.last,
});

/** The evaluation's day: floor(at / 86400000) of the merged scan. */
export const evaluationDay = (scanAt: number): number => Math.floor(scanAt / DAY_MS);

/** `ref`: the close of the item's newest day candle before `day`, or null. */
export function refClose(closes: readonly DayClose[], day: number): number | null {
  let best: DayClose | null = null;
  for (const c of closes) if (c[0] < day && (best === null || c[0] > best[0])) best = c;
  return best ? best[1] : null;
}

/** `fair`: lower median of the closes of the newest 7 day candles before `day` within its 30 days, when there are at least 3. */
export function fairPrice(closes: readonly DayClose[], day: number): number | null {
  const recent = closes
    .filter((c) => c[0] < day && c[0] >= day - FAIR_WINDOW_DAYS)
    .sort((a, b) => b[0] - a[0])
    .slice(0, FAIR_CANDLES)
    .map((c) => c[1])
    .sort((a, b) => a - b);
  if (recent.length < FAIR_MIN) return null;
  return recent[Math.floor((recent.length - 1) / 2)];
}

// Prices go up to 2^53-1 and are multiplied by up to 1100: compare exactly.
const big = BigInt;

/** Spec alert kinds table: whether `kind`/`value` holds for the item's row (null: no row) given `ref` and `fair`. */
export function conditionHolds(kind: AlertKind, value: number, row: RowReading | null, ref: number | null, fair: number | null): boolean {
  if (row === null) return false;
  const price = row.price;
  switch (kind) {
    case 'below':
      return price !== null && price <= value;
    case 'above':
      return price !== null && price >= value;
    case 'rise':
      return price !== null && ref !== null && big(price) * 100n >= big(ref) * big(100 + value);
    case 'fall':
      return price !== null && ref !== null && big(price) * 100n <= big(ref) * big(100 - value);
    case 'supplyBelow':
      return row.quantity <= value;
    case 'supplyAbove':
      return row.quantity >= value;
    case 'deal':
      return price !== null && fair !== null && big(price) * 100n <= big(fair) * big(100 - value);
  }
}

/** The outcome of one evaluation of one alert: its new state, whether it fired, whether anything changed. */
export interface AlertOutcome {
  alert: MarketAlert;
  /** A whole-market deal's remembered set (ascending keys); empty for single-item alerts. */
  remembered: number[];
  fired: boolean;
  changed: boolean;
}

/**
 * Spec Alert state table for a single-item alert: armed and holding and (never fired or the last firing at
 * least an hour ago) → fires and disarms; not holding → armed; holding but not allowed to fire → unchanged.
 */
export function evaluateSingle(alert: MarketAlert, holds: boolean, hit: AlertHit, now: number): AlertOutcome {
  if (!holds) {
    const changed = !alert.armed;
    return { alert: changed ? { ...alert, armed: true } : alert, remembered: [], fired: false, changed };
  }
  const mayRepeat = alert.last === null || now - alert.last.at >= ALERT_REPEAT_MS;
  if (!alert.armed || !mayRepeat) return { alert, remembered: [], fired: false, changed: false };
  return { alert: { ...alert, armed: false, last: { at: now, hits: [hit] } }, remembered: [], fired: true, changed: true };
}

/** An item holding a whole-market deal: its hit and the `fair` it was judged against. */
export interface DealCandidate {
  hit: AlertHit;
  fair: number;
}

/** Deepest discount first (smallest price / fair, compared exactly), then by item key. */
export function compareDeals(a: DealCandidate, b: DealCandidate): number {
  const l = big(a.hit[1] ?? 0) * big(b.fair);
  const r = big(b.hit[1] ?? 0) * big(a.fair);
  if (l !== r) return l < r ? -1 : 1;
  return a.hit[0] - b.hit[0];
}

/**
 * Spec Alert state table for a whole-market deal: items holding now that were not in the remembered set fire
 * (at most 20 hits, deepest discount first then by item key); `armed` stays true; the remembered set becomes
 * the items holding now, whether or not it fired.
 */
export function evaluateMarketDeal(alert: MarketAlert, remembered: readonly number[], holding: readonly DealCandidate[], now: number): AlertOutcome {
  const before = new Set(remembered);
  const fresh = holding.filter((c) => !before.has(c.hit[0])).sort(compareDeals);
  const next = [...new Set(holding.map((c) => c.hit[0]))].sort((a, b) => a - b);
  const sameSet = next.length === before.size && next.every((k) => before.has(k));
  if (fresh.length === 0) {
    const changed = !sameSet || !alert.armed;
    return { alert: alert.armed ? alert : { ...alert, armed: true }, remembered: next, fired: false, changed };
  }
  const hits = fresh.slice(0, DEAL_HITS_MAX).map((c) => c.hit);
  return { alert: { ...alert, armed: true, last: { at: now, hits } }, remembered: next, fired: true, changed: true };
}

/** The items of a market holding a whole-market deal of `value` percent, given each item's `fair`. */
export function marketDeals(rows: Iterable<readonly [number, RowReading]>, fairOf: (key: number) => number | null, value: number): DealCandidate[] {
  const out: DealCandidate[] = [];
  for (const [key, row] of rows) {
    if (row.price === null) continue;
    const fair = fairOf(key);
    if (fair !== null && conditionHolds('deal', value, row, null, fair)) out.push({ hit: [key, row.price, row.quantity], fair });
  }
  return out;
}
