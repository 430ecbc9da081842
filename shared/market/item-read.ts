/**
 * Day data of a few items, read cheaply (issue target: a single-item answer within 30 read units): compacted
 * days from each item's history shard (one small read for 90 days), later days from the items' shards of
 * each day candle and volume page. The recent days are read in the same round trip as the compaction mark,
 * guessing the mark is recent (compaction runs daily); older uncompacted days follow in a second one. A mark
 * read in the last 10 minutes is reused (issue 15 point 6): then one round trip reads the history shard and
 * only the days after the mark, neither the mark nor a day page the shard already holds.
 */
import type { Candle } from '../domain/candles';
import type { Volume } from '../domain/volume-estimate';
import { HISTORY_SHARDS, shardOf } from '../page-format/shard-layout';
import type { HistoryPage } from '../ports/market';
import { historyMark } from './history-compaction';
import { dayPagesOf, historyOf } from './page-cache';
import { registerReadCache } from './read-cache';
import type { ReadSources } from './sources';

/** Days read from day pages without waiting for the mark: today and the two days before (the mark trails today by two or three days). */
const RECENT_DAYS = 3;
/**
 * A read compaction mark is reused this long (service clock) per store and market (issue 15 point 6: cost).
 * The mark only moves forward, once a day, and day pages outlive compaction, so a reused mark that has since
 * moved only makes a read take a compacted day from its page instead of the history shard: the same data.
 */
export const MARK_REUSE_MS = 10 * 60_000;
const marks = new Map<string, { mark: number | null; at: number }>();
registerReadCache(marks);

export interface ItemDays {
  candles: Map<number, Candle>;
  volume: Map<number, Volume>;
}

/** The day candles (and, with `withVolume`, volume estimates) of `key` for days `first..last`. */
export async function itemDays(src: ReadSources, market: string, key: number, first: number, last: number, withVolume: boolean): Promise<ItemDays> {
  return (await itemsDays(src, market, [key], first, last, withVolume)).get(key) as ItemDays;
}

/** Day data of `keys` for days `first..last`, one entry per key. */
export async function itemsDays(
  src: ReadSources,
  market: string,
  keys: readonly number[],
  first: number,
  last: number,
  withVolume: boolean,
): Promise<Map<number, ItemDays>> {
  const out = new Map<number, ItemDays>(keys.map((k) => [k, emptyDays()]));
  if (first > last || keys.length === 0) return out;
  const read = await readDays(src, market, keys, first, last, withVolume);
  const { histories, historyThrough } = read;
  for (const key of keys) {
    const into = out.get(key) as ItemDays;
    const history = histories.get(shardOf(key, HISTORY_SHARDS));
    const pages = [read.recent.get(key), read.more.get(key)];
    for (let day = first; day <= last; day++) {
      const fromHistory = day <= historyThrough;
      const c = fromHistory ? history?.get(day)?.candles.get(key) : (pages[0]?.candles.get(day) ?? pages[1]?.candles.get(day));
      if (c) into.candles.set(day, c);
      if (!withVolume) continue;
      const v = fromHistory ? history?.get(day)?.volume.get(key) : (pages[0]?.volume.get(day) ?? pages[1]?.volume.get(day));
      if (v) into.volume.set(day, v);
    }
  }
  return out;
}

interface DaysRead {
  /** Days up to this one come from the history shards, later ones from the day pages. */
  historyThrough: number;
  histories: Map<number, HistoryPage>;
  recent: Map<number, ItemDays>;
  more: Map<number, ItemDays>;
}

/**
 * The history shards and day pages the window needs. With a mark read in the last MARK_REUSE_MS: one round
 * trip reading exactly the shards and the days after the mark. Else the mark is read with the recent days
 * (guessing it is recent), older uncompacted days follow, and the mark is kept for the next reads.
 */
async function readDays(src: ReadSources, market: string, keys: readonly number[], first: number, last: number, withVolume: boolean): Promise<DaysRead> {
  const id = `${src.scope}|${market}`;
  const now = src.clock.now();
  let known = marks.get(id);
  const none = new Map<number, ItemDays>();
  const fresh = (k: typeof known): k is { mark: number | null; at: number } => k !== undefined && now >= k.at && now - k.at < MARK_REUSE_MS;
  if (src.cache && !fresh(known)) {
    // With the read caches the mark is read first, alone: history shards are cached under the mark they were
    // read after, so a shard read in parallel with a mark that moved meanwhile can never be kept under it.
    known = { mark: await historyMark(src, market), at: now };
    marks.set(id, known);
  }
  if (fresh(known)) {
    const historyThrough = Math.min(known.mark ?? first - 1, last);
    const [histories, recent] = await Promise.all([
      first <= historyThrough ? historiesOf(src, market, keys, known.mark) : Promise.resolve(new Map<number, HistoryPage>()),
      pagesOf(src, market, keys, range(Math.max(first, historyThrough + 1), last), withVolume),
    ]);
    return { historyThrough, histories, recent, more: none };
  }
  const recentFirst = Math.max(first, last - RECENT_DAYS + 1);
  const [mark, histories, recent] = await Promise.all([
    historyMark(src, market),
    // A window that lies wholly in the recent days never needs the history shards.
    first < recentFirst ? historiesOf(src, market, keys, null) : Promise.resolve(new Map<number, HistoryPage>()),
    pagesOf(src, market, keys, range(recentFirst, last), withVolume),
  ]);
  marks.set(id, { mark, at: now });
  const compactedThrough = mark ?? first - 1;
  const older = range(Math.max(first, compactedThrough + 1), recentFirst - 1);
  const more = older.length > 0 ? await pagesOf(src, market, keys, older, withVolume) : none;
  // The recent days are always read from their pages here (the history shards are not read for them).
  return { historyThrough: Math.min(compactedThrough, recentFirst - 1), histories, recent, more };
}

/** The history shards holding `keys`, by shard (a split shard: only the parts holding them); cached under `mark` when not null. */
async function historiesOf(src: ReadSources, market: string, keys: readonly number[], mark: number | null): Promise<Map<number, HistoryPage>> {
  const byShard = new Map<number, number[]>();
  for (const k of keys) byShard.set(shardOf(k, HISTORY_SHARDS), [...(byShard.get(shardOf(k, HISTORY_SHARDS)) ?? []), k]);
  const shards = [...byShard];
  const pages = await Promise.all(shards.map(([, of]) => historyOf(src, market, of, mark)));
  return new Map(shards.map(([s], i) => [s, pages[i]]));
}

/** The keys' entries of the day candle and volume pages of `days`. */
async function pagesOf(src: ReadSources, market: string, keys: readonly number[], days: number[], withVolume: boolean): Promise<Map<number, ItemDays>> {
  const out = new Map<number, ItemDays>();
  if (days.length === 0) return out;
  const { candles, volume } = await dayPagesOf(src, market, days, keys, withVolume);
  const of = (key: number): ItemDays => {
    let d = out.get(key);
    if (!d) {
      d = emptyDays();
      out.set(key, d);
    }
    return d;
  };
  for (const [day, page] of candles) for (const [key, c] of page) of(key).candles.set(day, c);
  for (const [day, page] of volume) for (const [key, v] of page) of(key).volume.set(day, v);
  return out;
}

const emptyDays = (): ItemDays => ({ candles: new Map(), volume: new Map() });

/** Integers `a..b` ascending (empty when a > b). */
export function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}
