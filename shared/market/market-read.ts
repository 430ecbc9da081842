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
import { unionSorted } from '../domain/sorted-keys';
import { periodsWithScans } from './candle-read';
import { daySoFar } from './day-so-far';
import { finalDay, finalHour, KEPT_DAYS } from './history-compaction';
import { range } from './item-read';
import { CLOSE, COMMA, JsonBytes, JsonText, OPEN } from './json-bytes';
import { FINAL, type PeriodBytes, packPeriod, unpackPeriod } from './period-fragment';
import { registerReadCache } from './read-cache';
import type { ReadSources } from './sources';

export interface HistoryOptions {
  /** Hourly view: today is the day so far before this cut, and today's volume is left out. */
  cut?: number;
  withVolume: boolean;
  /** The answer's text around the items: the result is then the whole body. */
  around?: Envelope;
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
 * Text written before and after the items (the answer's other members), so the whole body is one string made
 * once: joining a 27 MB items text to them copied it again, and again when the joined text was encoded.
 */
export interface Envelope {
  head: string;
  tail: string;
}

const ASCII = /^[\x20-\x7e]*$/;

/**
 * Writes `key`'s elements of `periods` (each at its cursor, keys ascending), oldest first and comma-separated,
 * and moves the cursors past them.
 */
function writeElements(out: JsonBytes, periods: readonly PeriodBytes[], cur: Int32Array, key: number): void {
  let any = false;
  for (let i = 0; i < periods.length; i++) {
    const p = periods[i];
    const at = cur[i];
    if (at >= p.keys.length || p.keys[at] !== key) continue;
    if (any) out.byte(COMMA);
    any = true;
    out.span(p.data, at === 0 ? 0 : p.ends[at - 1], p.ends[at]);
    cur[i] = at + 1;
  }
}

/**
 * Consecutive periods joined into one: per item, its elements of every period, comma-separated, as an answer
 * lists them. An answer written with the joined period in their place is the same text: writeItems copies one
 * span per item instead of one per item and period (a 30-day history: 20000 instead of 600000 spans).
 */
export function joinPeriods(periods: readonly PeriodBytes[]): PeriodBytes {
  let keys: Float64Array = new Float64Array(0);
  let size = 0;
  for (const p of periods) {
    keys = unionSorted(keys, p.keys);
    size += p.data.length + p.keys.length;
  }
  const out = new JsonBytes(Math.max(256, size));
  const ends = new Int32Array(keys.length);
  const cur = new Int32Array(periods.length);
  for (let k = 0; k < keys.length; k++) {
    writeElements(out, periods, cur, keys[k]);
    ends[k] = out.length;
  }
  return { keys, ends, data: Buffer.from(out.view()), seq: FINAL };
}

/**
 * Writes `[item, [elements…], [elements…]?]` per item of any period, items ascending: `lists` are the
 * element lists per item (each a run of periods, oldest first); inside `around` when given.
 */
function writeItems(lists: ReadonlyArray<readonly PeriodBytes[]>, around?: Envelope): JsonText {
  // The writer is ASCII only: any other text is joined as text.
  if (around && !(ASCII.test(around.head) && ASCII.test(around.tail))) return new JsonText(around.head + writeItems(lists).text + around.tail);
  let keys: Float64Array = new Float64Array(0);
  let size = 2;
  for (const periods of lists) {
    for (const p of periods) {
      keys = unionSorted(keys, p.keys);
      size += p.data.length + p.keys.length;
    }
  }
  const out = new JsonBytes(size + keys.length * (16 + 4 * lists.length) + (around ? around.head.length + around.tail.length : 0));
  const cursors = lists.map((periods) => new Int32Array(periods.length));
  if (around) out.ascii(around.head);
  out.byte(OPEN);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (k > 0) out.byte(COMMA);
    out.byte(OPEN);
    out.int(key);
    lists.forEach((periods, l) => {
      out.ascii(',[');
      writeElements(out, periods, cursors[l], key);
      out.byte(CLOSE);
    });
    out.byte(CLOSE);
  }
  out.byte(CLOSE);
  if (around) out.ascii(around.tail);
  // Kept as bytes: an answer past the spill size goes to its file without becoming a string (json-bytes.ts).
  return new JsonText(out.view());
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
  const day = (kind: 'c' | 'v', d: number): PeriodSpec => ({
    id: `d1${kind}|${d}`,
    reachedBy: (bookAt) => dayOf(bookAt) === d,
    final: d <= lastFinal,
    // Spec Retention deletes a day's pages once it is before today − 90 (no history window reaches it before).
    // An earlier day a book can still reach is stored as an hour is (checked against the merge log, kept at most
    // 48 h), so a fresh instance after a merge reads only today's pages. Today is not stored: nearly every merge
    // reaches it, and until the next one live callers are sent to the answer's file (answer-files.ts), so its
    // fragment would be written after each merge and hardly ever read.
    storeUntil: d <= lastFinal ? (d + KEPT_DAYS + 1) * DAY_MS : d < today ? now + 2 * DAY_MS : null,
    build: async () =>
      kind === 'c' ? writePeriod(await src.store.candlePage(market, 'd1', d), dayCandle(d)) : writePeriod(await src.store.volumePage(market, d), dayVolume(d)),
  });
  // The final days as one period (issue 27 point 3, cold history like warm): they never change again, so a
  // fresh instance reads them as one stored fragment per kind and copies one span per item (runOf).
  const finals = days.filter((d) => d <= lastFinal).length;
  const specsOf = (kind: 'c' | 'v'): PeriodSpec[] => {
    const each = days.map((d) => day(kind, d));
    if (finals < 2) return each;
    const run = runOf(src, market, `d1${kind}|${days[0]}-${days[finals - 1]}`, each.slice(0, finals), STORED_DAY_WINDOWS.includes(today - from));
    return [run, ...each.slice(finals)];
  };
  const [candles, volume, soFar] = await Promise.all([
    periodsBytes(src, market, specsOf('c')),
    periodsBytes(src, market, opts.withVolume ? specsOf('v') : []),
    opts.cut !== undefined && from <= today ? daySoFar(src, market, opts.cut) : Promise.resolve<CandlePage>(new Map()),
  ]);
  if (soFar.size > 0) candles.push(writePeriod(soFar, dayCandle(today)));
  return writeItems([candles, volume], opts.around);
}

/**
 * Spec intraday `items` as JSON text: per item, `[hour, close, quantity]` of its hour candles of hours
 * `from..toHour`. Every hour is stored; one that was not final when read is kept no longer than 48 h, well
 * within the 72 h the merge log says which merges came after it.
 */
export async function marketIntraday(src: ReadSources, market: string, from: number, toHour: number, around?: Envelope): Promise<JsonText> {
  const hours = await periodsWithScans(src, market, 'h1', from, toHour);
  const now = src.clock.now();
  const lastFinal = finalHour(now);
  const each = hours.map(
    (h): PeriodSpec => ({
      id: `h1|${h}`,
      reachedBy: (bookAt: number) => hourOf(bookAt) === h,
      final: h <= lastFinal,
      // Spec Retention deletes an hour's pages once it is before hour − 336.
      storeUntil: h <= lastFinal ? (h + RETAINED_HOURS + 1) * HOUR_MS : now + 2 * DAY_MS,
      build: async () => writePeriod(await src.store.candlePage(market, 'h1', h), hourPoint(h)),
    }),
  );
  // Every hour but the newest as one period (runOf): nearly every merge reaches the newest, hardly any an
  // earlier one, so a fresh instance in the same hour reads the rest as one fragment. Named by its first and
  // last hour and how many hours with scans it holds.
  const n = each.length - 1;
  const specs = n < 2 ? each : [runOf(src, market, `h1|${hours[0]}-${hours[n - 1]}|${n}`, each.slice(0, n), toHour - from === STORED_HOUR_WINDOW), each[n]];
  return writeItems([await periodsBytes(src, market, specs)], around);
}

/**
 * The windows whose runs are stored (days back from today: the default 30 and the plans' 7 and 90; the
 * default 24 hours of intraday). A run of any other window is kept in memory only: a caller choosing `from`
 * freely must not make the store hold a copy of the market's history per `from`.
 */
const STORED_DAY_WINDOWS = [7, 30, 90];
const STORED_HOUR_WINDOW = 24;

/**
 * Consecutive periods as one (issue 27 point 3: kept in the form they are answered in): their elements joined
 * per item (joinPeriods), built from the periods' own elements (kept, stored or read from their pages, each
 * checked as usual), so it holds exactly what they hold. It is final when they all are; otherwise it is checked
 * as any period is: stale once a merge after the seq it was built at (read before its periods were) carried a
 * book read in any of them. Stored (when `stored`) no longer than the first of them would be.
 */
function runOf(src: ReadSources, market: string, id: string, specs: readonly PeriodSpec[], stored: boolean): PeriodSpec {
  const until = specs.map((s) => s.storeUntil);
  return {
    id,
    reachedBy: (bookAt) => specs.some((s) => s.reachedBy(bookAt)),
    final: specs.every((s) => s.final),
    storeUntil: !stored || until.includes(null) ? null : Math.min(...(until as number[])),
    build: async () => joinPeriods(await periodsBytes(src, market, specs)),
  };
}

/** One period of a whole-market answer: how to build its elements and how long they hold. */
interface PeriodSpec {
  /** Names the period within the market (`d1c|<day>`, `d1v|<day>`, `h1|<hour>`; runs `d1c|<first>-<last>`, `h1|<first>-<last>|<hours>`). */
  id: string;
  /** Whether a merge of a book read at `bookAt` writes this period's page. */
  reachedBy: (bookAt: number) => boolean;
  /** No book can reach the period any more: its elements never change again. */
  final: boolean;
  /** Until when its elements may be stored (the answer store's fragments); null: kept in memory only. */
  storeUntil: number | null;
  /** Reads the period's page and writes its elements. */
  build: () => Promise<PeriodBytes>;
}

/**
 * The elements of each period, kept in the form they are answered in: in memory, then stored (the answer
 * store's fragments), so a fresh instance copies them instead of reading and decoding pages. Each is built
 * with the market's seq read before its page was, or marked `FINAL` when no book could reach the period any
 * more then. A kept or stored period that is not final is used unless a merge after its seq carried a book
 * read in it (a late upload), or one whose book is unknown (the merge log keeps records 72 h).
 */
async function periodsBytes(src: ReadSources, market: string, specs: readonly PeriodSpec[]): Promise<PeriodBytes[]> {
  if (specs.length === 0) return [];
  const now = src.clock.now();
  const ids = specs.map((s) => `${src.scope}|${market}|${s.id}`);
  const hits = ids.map((id) => recall(id));
  const fragments = src.fragments;
  if (fragments) {
    const stored = await Promise.all(
      specs.map(async (s, i) => (hits[i] || s.storeUntil === null ? undefined : unpacked(await fragments.readFragment(fragmentKey(market, s), now)))),
    );
    stored.forEach((p, i) => {
      if (p) hits[i] = p;
    });
  }
  const stale = new Set<number>();
  // A period built before it was final is built again once it is (then never again): so a non-final one is
  // never older than the 24 h a book may lag plus its own length, and the merges that reached it are all logged.
  specs.forEach((s, i) => {
    if (hits[i] && hits[i].seq !== FINAL && s.final) stale.add(i);
  });
  const checked = hits.filter((p, i): p is PeriodBytes => p !== undefined && p.seq !== FINAL && !stale.has(i));
  if (checked.length > 0) {
    const later = await src.merges.after(market, Math.min(...checked.map((p) => p.seq)), now);
    specs.forEach((s, i) => {
      const p = hits[i];
      if (p && p.seq !== FINAL && !stale.has(i) && later.some((r) => r.seq > p.seq && (r.bookAt === undefined || s.reachedBy(r.bookAt)))) stale.add(i);
    });
  }
  const missing = specs.map((_, i) => i).filter((i) => !hits[i] || stale.has(i));
  const seq = missing.some((i) => !specs[i].final) ? (await src.store.meta(market)).seq : FINAL;
  const built = await Promise.all(missing.map(async (i) => ({ ...(await specs[i].build()), seq: specs[i].final ? FINAL : seq })));
  const out = hits as PeriodBytes[];
  missing.forEach((i, j) => {
    out[i] = built[j];
  });
  for (let i = 0; i < out.length; i++) keep(ids[i], out[i]);
  if (fragments && !src.readOnly) {
    await Promise.all(
      missing.map(async (i, j) => {
        const until = specs[i].storeUntil;
        if (until === null) return;
        try {
          await fragments.writeFragment(fragmentKey(market, specs[i]), packPeriod(built[j]), until);
        } catch {
          // A lost write only costs a later instance the decoding; the answer does not depend on it.
        }
      }),
    );
  }
  return out;
}

const fragmentKey = (market: string, s: PeriodSpec): string => `v1|${market}|${s.id}`;

const unpacked = (bytes: Uint8Array | null): PeriodBytes | null => (bytes ? unpackPeriod(bytes) : null);
