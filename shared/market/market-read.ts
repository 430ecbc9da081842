/**
 * Whole-market reads (spec Market reads: history, intraday): whole day and hour pages, one Query per period
 * and all periods at once, folded per item. Items ascending by key, lists oldest first.
 *
 * A 30-day history of a 20000-key market is ~27 MB of JSON and decoding its pages is most of its cost, so
 * answers are written as bytes (no string per number) from per-period element bytes that a warm function
 * keeps: days no book can change any more (older than the 24 h an upload may lag) as they are, hours while no
 * later merge carried a book read in them.
 */
import { DAY_MS, dayOf, HOUR_MS, hourOf } from '../clock';
import type { CandlePage } from '../domain/candles';
import { RETAINED_HOURS } from '../domain/retention';
import { JsonText } from './answer-cache';
import { periodsWithScans } from './candle-read';
import { daySoFar } from './day-so-far';
import { finalDay, finalHour, KEPT_DAYS } from './history-compaction';
import { range } from './item-read';
import { CLOSE, COMMA, JsonBytes, OPEN } from './json-bytes';
import { FINAL, type PeriodBytes, packPeriod, unpackPeriod } from './period-fragment';
import { registerReadCache } from './read-cache';
import type { ReadSources } from './sources';

export interface HistoryOptions {
  /** Hourly view: today is the day so far before this cut, and today's volume is left out. */
  cut?: number;
  withVolume: boolean;
}

/** Kept period bytes of every market, least recently used first; bounded by total size. */
const kept = new Map<string, PeriodBytes>();
let keptBytes = 0;
const KEPT_MAX_BYTES = 160 * 1024 * 1024;
// A fresh instance (clearReadCaches) keeps nothing.
registerReadCache({
  clear: () => {
    kept.clear();
    keptBytes = 0;
  },
});

function keep(id: string, p: PeriodBytes): void {
  const had = kept.get(id);
  if (had) keptBytes -= sizeOf(had);
  kept.delete(id);
  kept.set(id, p);
  keptBytes += sizeOf(p);
  while (keptBytes > KEPT_MAX_BYTES && kept.size > 1) {
    const [oldest, value] = kept.entries().next().value as [string, PeriodBytes];
    kept.delete(oldest);
    keptBytes -= sizeOf(value);
  }
}

const sizeOf = (p: PeriodBytes): number => p.data.length + p.keys.length * 12;

function recall(id: string): PeriodBytes | undefined {
  const hit = kept.get(id);
  if (hit) {
    kept.delete(id);
    kept.set(id, hit);
  }
  return hit;
}

/** Writes one element per item of a page, keys ascending. */
function writePeriod<T>(page: ReadonlyMap<number, T>, write: (w: JsonBytes, value: T) => void, seq = 0): PeriodBytes {
  const keys = Float64Array.from(page.keys()).sort();
  const ends = new Int32Array(keys.length);
  const w = new JsonBytes(Math.max(256, keys.length * 40));
  for (let i = 0; i < keys.length; i++) {
    write(w, page.get(keys[i]) as T);
    ends[i] = w.length;
  }
  return { keys, ends, data: Buffer.from(w.view()), seq };
}

const dayCandle =
  (day: number) =>
  (w: JsonBytes, c: { open: number; high: number; low: number; close: number; quantity: number }): void => {
    w.byte(OPEN);
    w.int(day);
    w.byte(COMMA);
    w.int(c.open);
    w.byte(COMMA);
    w.int(c.high);
    w.byte(COMMA);
    w.int(c.low);
    w.byte(COMMA);
    w.int(c.close);
    w.byte(COMMA);
    w.int(c.quantity);
    w.byte(CLOSE);
  };

const dayVolume =
  (day: number) =>
  (w: JsonBytes, v: readonly number[]): void => {
    w.byte(OPEN);
    w.int(day);
    for (const n of v) {
      w.byte(COMMA);
      w.int(n);
    }
    w.byte(CLOSE);
  };

const hourPoint =
  (hour: number) =>
  (w: JsonBytes, c: { close: number; quantity: number }): void => {
    w.byte(OPEN);
    w.int(hour);
    w.byte(COMMA);
    w.int(c.close);
    w.byte(COMMA);
    w.int(c.quantity);
    w.byte(CLOSE);
  };

/**
 * Writes `[item, [elements…], [elements…]?]` per item of any period, items ascending: `lists` are the
 * element lists per item (each a run of periods, oldest first).
 */
function writeItems(lists: ReadonlyArray<readonly PeriodBytes[]>): string {
  const union = new Set<number>();
  let size = 2;
  for (const periods of lists) {
    for (const p of periods) {
      for (const k of p.keys) union.add(k);
      size += p.data.length + p.keys.length;
    }
  }
  const keys = Float64Array.from(union).sort();
  const out = new JsonBytes(size + keys.length * (16 + 4 * lists.length));
  const cursors = lists.map((periods) => new Int32Array(periods.length));
  out.byte(OPEN);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (k > 0) out.byte(COMMA);
    out.byte(OPEN);
    out.int(key);
    lists.forEach((periods, l) => {
      out.ascii(',[');
      let any = false;
      const cur = cursors[l];
      for (let i = 0; i < periods.length; i++) {
        const p = periods[i];
        const at = cur[i];
        if (at >= p.keys.length || p.keys[at] !== key) continue;
        if (any) out.byte(COMMA);
        any = true;
        out.span(p.data, at === 0 ? 0 : p.ends[at - 1], p.ends[at]);
        cur[i] = at + 1;
      }
      out.byte(CLOSE);
    });
    out.byte(CLOSE);
  }
  out.byte(CLOSE);
  return out.text();
}

/**
 * Spec history `items` as JSON text: every item with a day candle (or, with depth, a volume estimate) on days
 * `from..today`, `[item, [day, open, high, low, close, quantity][], [day, listed, sold, expired][]]`.
 */
export async function marketHistory(src: ReadSources, market: string, from: number, now: number, opts: HistoryOptions): Promise<JsonText> {
  const today = dayOf(now);
  const lastStored = opts.cut === undefined ? today : today - 1;
  const lastFinal = Math.min(lastStored, finalDay(now));
  const days = range(from, lastStored);
  const [candles, volume, soFar] = await Promise.all([
    Promise.all(days.map((d) => dayBytes(src, market, 'c', d, d <= lastFinal))),
    Promise.all((opts.withVolume ? days : []).map((d) => dayBytes(src, market, 'v', d, d <= lastFinal))),
    opts.cut !== undefined && from <= today ? daySoFar(src, market, opts.cut) : Promise.resolve<CandlePage>(new Map()),
  ]);
  if (soFar.size > 0) candles.push(writePeriod(soFar, dayCandle(today)));
  return new JsonText(writeItems([candles, volume]));
}

/**
 * A day's candle (`c`) or volume (`v`) elements. A final day (no book can change it any more) is kept in
 * memory and, once written, stored as it is answered (the answer store's day fragments), so a fresh instance
 * copies it instead of reading and decoding the day's pages; later days are read every time. A stored
 * fragment expires when retention drops its day's pages ([`fragmentExpiry`]); no history window reaches
 * such a day before then (`historyFrom`: at most 90 days back).
 */
async function dayBytes(src: ReadSources, market: string, kind: 'c' | 'v', day: number, final: boolean): Promise<PeriodBytes> {
  const id = `${src.scope}|${market}|d1${kind}|${day}`;
  const hit = final ? recall(id) : undefined;
  if (hit) return hit;
  const key = `v1|${market}|d1${kind}|${day}`;
  const stored = final && src.fragments ? await storedDay(src, key) : null;
  if (stored) {
    keep(id, stored);
    return stored;
  }
  const p =
    kind === 'c'
      ? writePeriod(await src.store.candlePage(market, 'd1', day), dayCandle(day))
      : writePeriod(await src.store.volumePage(market, day), dayVolume(day));
  if (final) {
    keep(id, p);
    if (src.fragments && !src.readOnly) await storeFragment(src, key, p, fragmentExpiry(day));
  }
  return p;
}

/** Spec Retention deletes a day's pages once it is before today − 90: its fragment expires then too. */
export const fragmentExpiry = (day: number): number => (day + KEPT_DAYS + 1) * DAY_MS;

async function storedDay(src: ReadSources, key: string): Promise<PeriodBytes | null> {
  return unpacked(await (src.fragments as NonNullable<ReadSources['fragments']>).readFragment(key, src.clock.now()));
}

const unpacked = (bytes: Uint8Array | null): PeriodBytes | null => (bytes ? unpackPeriod(bytes) : null);

/** Stores a period's elements; a lost write only costs a later instance the decoding. */
async function storeFragment(src: ReadSources, key: string, p: PeriodBytes, expiresAt: number): Promise<void> {
  try {
    await (src.fragments as NonNullable<ReadSources['fragments']>).writeFragment(key, packPeriod(p), expiresAt);
  } catch {
    // The answer does not depend on it.
  }
}

/**
 * Spec intraday `items` as JSON text: per item, `[hour, close, quantity]` of its hour candles of hours
 * `from..toHour`. Each hour's elements are kept in memory and stored (the answer store's fragments) with the
 * market's seq read before the hour's page was, or as final when no book could reach the hour any more then. A
 * kept or stored hour is used unless a merge after its seq carried a book read in that hour (a late upload);
 * a stored hour that was not final is kept no longer than 48 h, within the 72 h the merge log says which
 * merges came after it.
 */
export async function marketIntraday(src: ReadSources, market: string, from: number, toHour: number): Promise<JsonText> {
  const hours = await periodsWithScans(src, market, 'h1', from, toHour);
  const ids = hours.map((h) => `${src.scope}|${market}|h1|${h}`);
  const hits = ids.map((id) => recall(id));
  const fragments = src.fragments;
  if (fragments) {
    const now = src.clock.now();
    const stored = await Promise.all(hours.map(async (h, i) => (hits[i] ? undefined : unpacked(await fragments.readFragment(hourKey(market, h), now)))));
    stored.forEach((p, i) => {
      if (p) hits[i] = p;
    });
  }
  const checked = hits.filter((p): p is PeriodBytes => p !== undefined && p.seq !== FINAL);
  const stale = new Set<number>();
  if (checked.length > 0) {
    // A merge after a kept hour was read may have carried a book read in that hour (a late upload).
    const later = await src.merges.after(market, Math.min(...checked.map((p) => p.seq)), src.clock.now());
    hours.forEach((h, i) => {
      const p = hits[i];
      if (p && p.seq !== FINAL && later.some((r) => r.seq > p.seq && (r.bookAt === undefined || hourOf(r.bookAt) === h))) stale.add(h);
    });
  }
  const missing = hours.filter((h, i) => !hits[i] || stale.has(h));
  const now = src.clock.now();
  const lastFinal = finalHour(now);
  const seq = missing.length > 0 ? (await src.store.meta(market)).seq : 0;
  const read = await Promise.all(missing.map((h) => src.store.candlePage(market, 'h1', h)));
  const fresh = new Map(missing.map((h, i) => [h, writePeriod(read[i], hourPoint(h), h <= lastFinal ? FINAL : seq)]));
  const periods = hours.map((h, i) => {
    const p = fresh.get(h) ?? (hits[i] as PeriodBytes);
    keep(ids[i], p);
    return p;
  });
  if (fragments && !src.readOnly) {
    await Promise.all(
      [...fresh].map(([h, p]) => storeFragment(src, hourKey(market, h), p, p.seq === FINAL ? (h + RETAINED_HOURS + 1) * HOUR_MS : now + 2 * DAY_MS)),
    );
  }
  return new JsonText(writeItems([periods]));
}

const hourKey = (market: string, hour: number): string => `v1|${market}|h1|${hour}`;
