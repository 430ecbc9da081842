/**
 * Whole-market reads (spec Market reads: history, intraday): whole day and hour pages, one Query per period
 * and all periods at once, folded per item. Items ascending by key, lists oldest first.
 *
 * A 30-day history of a 20000-key market is ~27 MB of JSON; decoding its pages and serialising them is most of
 * its time. Days no book can change any more (older than the 24 h an upload may lag) are immutable, so a warm
 * function keeps their per-item JSON text and builds only the last days afresh.
 */
import { dayOf } from '../clock';
import type { Candle, CandlePage } from '../domain/candles';
import type { VolumePage } from '../domain/volume-estimate';
import { JsonText } from './answer-cache';
import { periodsWithScans } from './candle-read';
import { daySoFar } from './day-so-far';
import { finalDay } from './history-compaction';
import { range } from './item-read';
import type { ReadSources } from './sources';

/** Spec intraday entry: `[item, [hour, close, quantity][]]`. */
export type IntradayItem = [item: number, points: Array<[number, number, number]>];

export interface HistoryOptions {
  /** Hourly view: today is the day so far before this cut, and today's volume is left out. */
  cut?: number;
  withVolume: boolean;
}

/** Per item, the comma-joined JSON of its day candles and of its volume estimates over some days. */
interface DaysText {
  candles: Map<number, string>;
  volume: Map<number, string>;
}

const FINAL_CACHE = 4;
const finalText = new Map<string, Promise<DaysText>>();

/**
 * Spec history `items` as JSON text: every item with a day candle (or, with depth, a volume estimate) on days
 * `from..today`, `[item, [day, open, high, low, close, quantity][], [day, listed, sold, expired][]]`.
 */
export async function marketHistory(src: ReadSources, market: string, from: number, now: number, opts: HistoryOptions): Promise<JsonText> {
  const today = dayOf(now);
  const lastStored = opts.cut === undefined ? today : today - 1;
  const lastFinal = Math.min(lastStored, finalDay(now));
  const [final, recent, soFar] = await Promise.all([
    from <= lastFinal ? finalDays(src, market, from, lastFinal, opts.withVolume) : Promise.resolve<DaysText>({ candles: new Map(), volume: new Map() }),
    daysText(src, market, Math.max(from, lastFinal + 1), lastStored, opts.withVolume),
    opts.cut !== undefined && from <= today ? daySoFar(src, market, opts.cut) : Promise.resolve<CandlePage>(new Map()),
  ]);
  if (soFar.size > 0) {
    const todayText = new Map<number, string[]>();
    addDay(todayText, today, soFar);
    for (const [key, text] of joinAll(todayText)) recent.candles.set(key, joined(recent.candles.get(key), text));
  }
  const keys = new Set<number>();
  for (const part of [final, recent]) for (const m of [part.candles, part.volume]) for (const k of m.keys()) keys.add(k);
  const out: string[] = [];
  for (const key of [...keys].sort((a, b) => a - b)) {
    out.push(`[${key},[${joined(final.candles.get(key), recent.candles.get(key))}],[${joined(final.volume.get(key), recent.volume.get(key))}]]`);
  }
  return new JsonText(`[${out.join(',')}]`);
}

/** Final days' text, kept per market and window by a warm function (immutable: no book can change them). */
function finalDays(src: ReadSources, market: string, first: number, last: number, withVolume: boolean): Promise<DaysText> {
  const id = `${src.table}|${market}|${first}|${last}|${withVolume}`;
  let hit = finalText.get(id);
  if (hit) {
    finalText.delete(id);
  } else {
    hit = daysText(src, market, first, last, withVolume);
    hit.catch(() => finalText.delete(id));
  }
  finalText.set(id, hit);
  while (finalText.size > FINAL_CACHE) finalText.delete(finalText.keys().next().value as string);
  return hit;
}

/** Day candles and (with volume) estimates of days `first..last` as per-item JSON text. */
async function daysText(src: ReadSources, market: string, first: number, last: number, withVolume: boolean): Promise<DaysText> {
  const days = range(first, last);
  const [pages, volumes] = await Promise.all([
    Promise.all(days.map((d) => src.store.candlePage(market, 'd1', d))),
    Promise.all((withVolume ? days : []).map((d) => src.store.volumePage(market, d))),
  ]);
  const candles = new Map<number, string[]>();
  const volume = new Map<number, string[]>();
  days.forEach((d, i) => {
    addDay(candles, d, pages[i]);
  });
  volumes.forEach((page: VolumePage, i) => {
    const d = days[i];
    for (const [key, v] of page) append(volume, key, `[${d},${v[0]},${v[1]},${v[2]}]`);
  });
  // Joined once into flat strings: later answers copy them instead of walking many small pieces.
  return { candles: joinAll(candles), volume: joinAll(volume) };
}

function addDay(into: Map<number, string[]>, day: number, page: ReadonlyMap<number, Candle>): void {
  for (const [key, c] of page) append(into, key, `[${day},${c.open},${c.high},${c.low},${c.close},${c.quantity}]`);
}

function append(into: Map<number, string[]>, key: number, text: string): void {
  const had = into.get(key);
  if (had) had.push(text);
  else into.set(key, [text]);
}

function joinAll(parts: Map<number, string[]>): Map<number, string> {
  const out = new Map<number, string>();
  for (const [key, list] of parts) out.set(key, list.join(','));
  return out;
}

const joined = (a: string | undefined, b: string | undefined): string => (a && b ? `${a},${b}` : (a ?? b ?? ''));

/** Spec intraday: per item, `[hour, close, quantity]` of its hour candles of hours `from..toHour`. */
export async function marketIntraday(src: ReadSources, market: string, from: number, toHour: number): Promise<IntradayItem[]> {
  const hours = await periodsWithScans(src, market, 'h1', from, toHour);
  const pages = await Promise.all(hours.map((h) => src.store.candlePage(market, 'h1', h)));
  const items = new Map<number, IntradayItem>();
  hours.forEach((h, i) => {
    for (const [key, c] of pages[i]) {
      let e = items.get(key);
      if (!e) {
        e = [key, []];
        items.set(key, e);
      }
      e[1].push([h, c.close, c.quantity]);
    }
  });
  return [...items.values()].sort((a, b) => a[0] - b[0]);
}
