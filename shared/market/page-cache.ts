/**
 * The API function's caches of the pages single-item and candle reads read (issue 15 point 6: cost). A warm
 * instance answers many requests in turn; a page that cannot have changed since it was read is answered from
 * memory. Only the API's live item and candle routes use them (`ReadSources.cache`); merge, seal, snapshot,
 * compaction and retention always read fresh.
 *
 * Row shards, d1 candle shards and volume shards are keyed by (store, market, merge `seq`, page, shard). A
 * request validates with one strongly consistent META read (1 RCU). Every page write comes from a merge, which
 * records `pending` in META first, writes its pages, and commits the next `seq` (clearing `pending`) last
 * (merge-book.ts): so while META shows seq S and no pending merge, the pages are those of S. A merge under way
 * (`pending` set) bypasses the caches. A page an instance misses for the first time is read eventually
 * consistent and used for that answer only, as an uncached read would (issue 27: half the units of a fresh
 * instance); missed again, it is read strongly consistent and cached under S (an eventually consistent read
 * just after a commit could return the previous content and keep it a whole merge interval). Writers that do
 * not bump `seq`:
 *  - retention deletes d1 and volume pages of days before today − 90: no read window reaches them (windows
 *    start at today − min(90, historyDays));
 *  - retention rewrites row shards without the rows older than 30 days (conditioned on an unchanged seq) and
 *    bumps META's `rowsRev` in the same transaction: row shards are keyed by it too (as the table route's).
 * Whether it pays: a hit costs the META read (1 RCU) and saves the row shard (1–1.5 RCU eventually
 * consistent), the recent days' d1 shards (3–5) and volume shards (2); a miss costs 1 + twice those (strong
 * reads). With a merge every ~5 minutes per market and ~12 reads a second per instance, nearly every read hits.
 * Hour (h1) shards: an hour no book can reach any more (it ended more than the 24 h a book may lag plus the
 * merge grace ago, the rule compaction's `finalDay` uses for days) never changes again, so its shards are kept
 * without a seq; the last ~25 hours are kept per seq like the day shards. Which hours have candles still comes
 * from the scan log on every read, as a fresh read does. Minute pages are not cached (rare, and every merge
 * rewrites the window's newest ones).
 *
 * History shards are kept as their stored bytes (a 20000-key market's shard, ~40 items' 90 days, is ~25 KB
 * encoded and ~1 MB decoded), keyed by the compaction mark they were read under (item-read.ts reuses the mark
 * 10 minutes, then reads it again), no META needed: compaction writes the shards before it moves the mark and
 * never changes a day at or before the mark; it and retention only drop days before today − 90, which no
 * window reads. A miss reads the shard eventually consistent and keeps it when compaction's stamp in it shows
 * the mark's days are there, else reads it strongly consistent (historyShardUnder: a lagging replica never
 * answers). An item's days, decoded from its shard (~4 ms), are kept per item on top, for items read again.
 *
 * Memory: 192 MB of page shards (row 32, d1 48, volume 48, h1 64), 96 MB of history shards' bytes and 32 MB of
 * item histories, 320 MB of the API function's 1024 MB. Sizes are estimated per decoded entry (a Map slot and
 * its object), and by bytes for history shards. The working set of one seq for 6 markets of 20000 keys: row
 * shards ~24 MB, the 2–3 days after the mark ~40 MB of d1 and ~30 MB of volume shards; every history shard of
 * the 6 markets ~75 MB of bytes (512 a market), so a warm instance reads each about once a day.
 */

import type { Clock } from '../clock';
import { DAY_MS, HOUR_MS } from '../clock';
import type { Candle, CandlePage, CandleRes } from '../domain/candles';
import type { Row, RowTable } from '../domain/merge';
import type { Volume, VolumePage } from '../domain/volume-estimate';
import { decodeHistoryParts } from '../page-format/history-parts';
import { HISTORY_SHARDS, PAGE_SHARDS, ROW_SHARDS, shardOf } from '../page-format/shard-layout';
import type { HistoryPage, MarketPages, MarketPort } from '../ports/market';
import { ReadCache } from './read-cache';
import { type ReadSources, readSources } from './sources';

const MB = 1 << 20;
/** Estimated bytes of one decoded entry in memory (Map slot, object, fields). */
const ROW_BYTES = 200;
const CANDLE_BYTES = 160;
const VOLUME_BYTES = 120;

const rowCache = new ReadCache<RowTable>('row shards', 32 * MB, (rows) => 64 + rows.size * ROW_BYTES);
const dayCache = new ReadCache<CandlePage>('d1 shards', 48 * MB, (p) => 64 + p.size * CANDLE_BYTES);
const volumeCache = new ReadCache<VolumePage>('volume shards', 48 * MB, (p) => 64 + p.size * VOLUME_BYTES);
const hourCache = new ReadCache<CandlePage>('h1 shards', 64 * MB, (p) => 64 + p.size * CANDLE_BYTES);
/** A book may be read 24 h before its upload (spec Limits) and its merge may take this long (as compaction's finalDay). */
const LATE_BOOK_MS = DAY_MS;
const MERGE_GRACE_MS = 10 * 60_000;
const historyCache = new ReadCache<ItemHistory>('item histories', 32 * MB, (days) => 64 + days.length * (CANDLE_BYTES + VOLUME_BYTES));
const historyShardCache = new ReadCache<Uint8Array[]>('history shards', 96 * MB, (parts) => 64 + parts.reduce((n, d) => n + d.length, 0));
/**
 * Issue 27 point 4 (single-item fresh read units): a row, day candle or hour candle or volume shard an
 * instance misses for the first time is read eventually consistent (half the units) and not cached, as an
 * uncached read would; only one missed again is read strongly consistent and cached (history shards: below). A fresh instance, and pages read once, pay half; a page read often
 * pays one eventually consistent read more before it is cached.
 */
const touched = new ReadCache<true>('pages touched once', 4 * MB, (_v) => 96);

/** Whether `key` was missed before (and marks it): the miss is then read strongly and cached. */
function missedBefore(key: string): boolean {
  if (touched.get(key)) return true;
  touched.set(key, true);
  return false;
}

/**
 * The read sources of one live item or candle request of the API function: the market's seq read strongly
 * consistent (1 RCU), so later reads may be answered from the caches; a merge under way reads fresh.
 */
export async function cachedReadSources(svc: { market: MarketPort; clock: Clock }, market: string): Promise<ReadSources> {
  const src = readSources(svc);
  const meta = await svc.market.latest.meta(market);
  if (meta.pending) return src;
  return { ...src, cache: { seq: meta.seq, rowsRev: meta.rowsRev ?? 0, latest: svc.market.latest } };
}

const unique = (xs: readonly number[]): number[] => [...new Set(xs)];

/** The rows of `keys`: whole row shards from the cache, else read. */
export async function rowsOf(src: ReadSources, market: string, keys: readonly number[]): Promise<RowTable> {
  const c = src.cache;
  if (!c) return src.store.rowsOf(market, keys);
  const shards = new Map<number, RowTable>();
  const missing: number[] = [];
  const keyOf = (s: number) => `${src.scope}|${market}|${c.seq}|${c.rowsRev}|rows|${s}`;
  for (const s of unique(keys.map((k) => shardOf(k, ROW_SHARDS)))) {
    const hit = rowCache.get(keyOf(s));
    if (hit) shards.set(s, hit);
    else missing.push(s);
  }
  if (missing.length > 0) {
    const again = missing.filter((s) => missedBefore(keyOf(s)));
    const once = missing.filter((s) => !again.includes(s));
    const [strong, eventual] = await Promise.all([
      again.length > 0 ? c.latest.rowShards(market, again) : Promise.resolve(new Map<number, RowTable>()),
      once.length > 0 ? src.store.rowShards(market, once) : Promise.resolve(new Map<number, RowTable>()),
    ]);
    for (const s of missing) {
      const rows = strong.get(s) ?? eventual.get(s) ?? new Map<number, Row>();
      if (again.includes(s)) rowCache.set(keyOf(s), rows);
      shards.set(s, rows);
    }
  }
  const out: RowTable = new Map();
  for (const k of keys) {
    const row = shards.get(shardOf(k, ROW_SHARDS))?.get(k);
    if (row) out.set(k, { ...row });
  }
  return out;
}

/** The read of cache misses of `res` candle shards (periods as `day`, as the caches key them), from `latest` or the eventually consistent store. */
const readCandleShards =
  (src: ReadSources, latest: MarketPages, market: string, res: CandleRes) =>
  async (miss: ReadonlyArray<{ day: number; shard: number }>, strong: boolean): Promise<Array<{ day: number; shard: number; page: CandlePage }>> =>
    (
      await (strong ? latest : src.store).candleShards(
        market,
        res,
        miss.map((w) => ({ period: w.day, shard: w.shard })),
      )
    ).map((r) => ({ day: r.period, shard: r.shard, page: r.page }));

/** Day candles and (with `withVolume`) volume of `keys` over `days`: day → key → value. */
export async function dayPagesOf(
  src: ReadSources,
  market: string,
  days: readonly number[],
  keys: readonly number[],
  withVolume: boolean,
): Promise<{ candles: Map<number, Map<number, Candle>>; volume: Map<number, VolumePage> }> {
  const c = src.cache;
  if (!c) {
    const [candles, volume] = await Promise.all([
      src.store.candlesOf(market, 'd1', days, keys),
      withVolume ? src.store.volumeOf(market, days, keys) : Promise.resolve(new Map<number, VolumePage>()),
    ]);
    return { candles, volume };
  }
  const wanted = days.flatMap((day) => unique(keys.map((k) => shardOf(k, PAGE_SHARDS))).map((shard) => ({ day, shard })));
  const base = `${src.scope}|${market}|${c.seq}`;
  const [candleShards, volumeShards] = await Promise.all([
    shardsOf(dayCache, wanted, (w) => `${base}|d1|${w.day}|${w.shard}`, readCandleShards(src, c.latest, market, 'd1')),
    withVolume
      ? shardsOf(
          volumeCache,
          wanted,
          (w) => `${base}|volume|${w.day}|${w.shard}`,
          (miss, strong) => (strong ? c.latest : src.store).volumeShardsOf(market, miss),
        )
      : Promise.resolve(new Map<string, VolumePage>()),
  ]);
  return { candles: projectShards(candleShards, days, keys), volume: projectShards(volumeShards, days, keys) };
}

/** The entries of `keys` in whole shards (`period|shard` → page): period → key → value (periods without any left out). */
function projectShards<V>(shards: Map<string, Map<number, V>>, periods: readonly number[], keys: readonly number[]): Map<number, Map<number, V>> {
  const out = new Map<number, Map<number, V>>();
  for (const p of periods) {
    const into = new Map<number, V>();
    for (const k of keys) {
      const v = shards.get(`${p}|${shardOf(k, PAGE_SHARDS)}`)?.get(k);
      if (v) into.set(k, v);
    }
    if (into.size > 0) out.set(p, into);
  }
  return out;
}

/** Shards `wanted` from `cache`, the misses read by `read` (a shard not stored is cached empty): `day|shard` → page. */
async function shardsOf<V>(
  cache: ReadCache<Map<number, V>>,
  wanted: ReadonlyArray<{ day: number; shard: number }>,
  keyOf: (w: { day: number; shard: number }) => string,
  read: (miss: Array<{ day: number; shard: number }>, strong: boolean) => Promise<Array<{ day: number; shard: number; page: Map<number, V> }>>,
): Promise<Map<string, Map<number, V>>> {
  const out = new Map<string, Map<number, V>>();
  const miss: Array<{ day: number; shard: number }> = [];
  for (const w of wanted) {
    const hit = cache.get(keyOf(w));
    if (hit) out.set(`${w.day}|${w.shard}`, hit);
    else miss.push(w);
  }
  if (miss.length === 0) return out;
  const again = miss.filter((w) => missedBefore(keyOf(w)));
  const once = miss.filter((w) => !again.includes(w));
  const [strong, eventual] = await Promise.all([again.length > 0 ? read(again, true) : [], once.length > 0 ? read(once, false) : []]);
  const found = new Map([...strong, ...eventual].map((r) => [`${r.day}|${r.shard}`, r.page]));
  for (const w of miss) {
    const page = found.get(`${w.day}|${w.shard}`) ?? new Map<number, V>();
    if (again.includes(w)) cache.set(keyOf(w), page);
    out.set(`${w.day}|${w.shard}`, page);
  }
  return out;
}

/** One item's days of a history shard (a history shard holds ~40 items' 90 days: kept per item, not whole). */
type ItemHistory = Array<[day: number, candle: Candle | undefined, volume: Volume | undefined]>;

/**
 * A history page as read, and `through`: the compaction mark its content is known to cover (every compacted day
 * up to it is in it), null when unknown (a shard stored before stamps, or never written).
 */
export interface StampedHistory {
  page: HistoryPage;
  through: number | null;
}

/**
 * The history of `keys` (one shard's), read under compaction mark `mark`: each key's days from the item cache
 * when read under the same mark; else the shard's stored bytes, from the shard cache or read strongly
 * consistent, decoded, and each key's days kept. Every page kept holds the mark's days (historyShardUnder), so
 * it answers `through: mark`. Without the caches (or a mark): one eventually consistent read of the parts
 * holding `keys`, with the stamp the replica that answered holds (issue 27: the caller must not take days after
 * it from the page, as the mark read beside it may be newer).
 */
export async function historyOf(src: ReadSources, market: string, keys: readonly number[], mark: number | null): Promise<StampedHistory> {
  const c = src.cache;
  if (keys.length === 0) return { page: new Map(), through: null };
  if (!c || mark === null) {
    const read = await src.store.historyShard(market, shardOf(keys[0], HISTORY_SHARDS), keys);
    return { page: read.parts.length === 0 ? new Map() : decodeHistoryParts(read.parts), through: read.through };
  }
  const keyOf = (k: number) => `${src.scope}|${market}|${mark}|history|${k}`;
  const hits = keys.map((k) => historyCache.get(keyOf(k)));
  if (hits.every((h) => h !== undefined)) {
    const page: HistoryPage = new Map();
    keys.forEach((k, i) => {
      for (const [day, candle, volume] of hits[i] as ItemHistory) {
        let d = page.get(day);
        if (!d) {
          d = { candles: new Map(), volume: new Map() };
          page.set(day, d);
        }
        if (candle) d.candles.set(k, candle);
        if (volume) d.volume.set(k, volume);
      }
    });
    return { page, through: mark };
  }
  const shard = shardOf(keys[0], HISTORY_SHARDS);
  const shardKey = `${src.scope}|${market}|${mark}|history-shard|${shard}`;
  let stored = historyShardCache.get(shardKey);
  if (!stored) {
    stored = await historyShardUnder(src.store, c.latest, market, shard, mark);
    historyShardCache.set(shardKey, stored);
  }
  const page: HistoryPage = stored.length === 0 ? new Map() : decodeHistoryParts(stored);
  for (const k of keys) {
    const days: ItemHistory = [];
    for (const [day, d] of page) {
      const candle = d.candles.get(k);
      const volume = d.volume.get(k);
      if (candle || volume) days.push([day, candle, volume]);
    }
    historyCache.set(keyOf(k), days);
  }
  return { page, through: mark };
}

/**
 * A history shard's stored bytes holding every day up to `mark` (issue 27 point 4): read eventually consistent
 * (half the units) and kept when compaction stamped it at or past `mark`; else (a replica that has not seen
 * that compaction's write, a shard stored before stamps, or none) read again strongly consistent, as every
 * read was before stamps. Days after `mark` in a newer shard are never answered from it (item-read.ts reads
 * them from the day pages), so a shard stamped past the mark is as good as one stamped with it.
 */
async function historyShardUnder(eventual: MarketPages, latest: MarketPages, market: string, shard: number, mark: number): Promise<Uint8Array[]> {
  let got = await eventual.historyShard(market, shard);
  if (got.through === null || got.through < mark) got = await latest.historyShard(market, shard);
  // Own copies: the SDK's buffers may be views of a larger one the cache would keep alive uncounted.
  return got.parts.map((d) => new Uint8Array(d));
}

/** Candles of `keys` over `periods` of `res`: period → key → candle; h1 shards from the cache (m1, or no cache: read). */
export async function candlePagesOf(
  src: ReadSources,
  market: string,
  res: CandleRes,
  periods: readonly number[],
  keys: readonly number[],
): Promise<Map<number, Map<number, Candle>>> {
  const c = src.cache;
  if (!c || res !== 'h1') return src.store.candlesOf(market, res, periods, keys);
  // Hours at or before this one are final: no merge can write them again.
  const finalHour = Math.floor((src.clock.now() - LATE_BOOK_MS - MERGE_GRACE_MS) / HOUR_MS) - 1;
  const wanted = periods.flatMap((hour) => unique(keys.map((k) => shardOf(k, PAGE_SHARDS))).map((shard) => ({ day: hour, shard })));
  const shards = await shardsOf(
    hourCache,
    wanted,
    (w) => `${src.scope}|${market}|${w.day <= finalHour ? 'final' : c.seq}|h1|${w.day}|${w.shard}`,
    readCandleShards(src, c.latest, market, 'h1'),
  );
  return projectShards(shards, periods, keys);
}
