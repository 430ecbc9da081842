/**
 * Day data of a few items, read cheaply (issue target: a single-item answer within 30 read units): compacted
 * days from each item's history shard (one small read for 90 days), later days from the items' shards of
 * each day candle and volume page. The recent days are read in the same round trip as the compaction mark,
 * guessing the mark is recent (compaction runs daily); older uncompacted days follow in a second one. A mark
 * read in the last 10 minutes is reused (issue 15 point 6): then one round trip reads the history shard and
 * only the days after the mark, neither the mark nor a day page the shard already holds.
 *
 * Without the read caches (the pages function, the API while a merge is under way) the mark and the shards are
 * read eventually consistent, in parallel: right after a compaction a replica may answer the new mark beside a
 * shard of before it (issue 27). Each shard read carries the mark its writer stamped on it, so the days between
 * that stamp and the mark are taken from the day pages (which outlive compaction) for the shard's keys: a
 * further read only then, none in the normal case. An unstamped shard (stored before stamps) is trusted as before;
 * none at all beside a mark (never written, or a replica that missed its first write) is read again strongly.
 */
import type { Candle } from '../domain/candles';
import type { Volume } from '../domain/volume-estimate';
import { decodeHistoryParts } from '../page-format/history-parts';
import { HISTORY_SHARDS, shardOf } from '../page-format/shard-layout';
import { historyMark } from './history-compaction';
import { dayPagesOf, historyOf, type StampedHistory } from './page-cache';
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
  for (const key of keys) {
    const into = out.get(key) as ItemDays;
    const shardRead = read.histories.get(shardOf(key, HISTORY_SHARDS));
    const history = shardRead?.page;
    const historyThrough = throughOf(shardRead, read.historyThrough);
    const pages = read.pages.map((p) => p.get(key));
    const fromPages = <V>(day: number, of: (d: ItemDays) => Map<number, V>): V | undefined => {
      for (const p of pages) {
        const v = p && of(p).get(day);
        if (v) return v;
      }
      return undefined;
    };
    for (let day = first; day <= last; day++) {
      const fromHistory = day <= historyThrough;
      const c = fromHistory ? history?.get(day)?.candles.get(key) : fromPages(day, (p) => p.candles);
      if (c) into.candles.set(day, c);
      if (!withVolume) continue;
      const v = fromHistory ? history?.get(day)?.volume.get(key) : fromPages(day, (p) => p.volume);
      if (v) into.volume.set(day, v);
    }
  }
  return out;
}

interface DaysRead {
  /** Days up to this one come from the history shards (up to a shard's stamp when older), later ones from the day pages. */
  historyThrough: number;
  histories: Map<number, StampedHistory>;
  /** Day pages of disjoint days, by key. */
  pages: Array<Map<number, ItemDays>>;
}

/** The last day taken from a shard read: the read's days up to `historyThrough`, or only to its stamp when that is older. */
const throughOf = (read: StampedHistory | undefined, historyThrough: number): number =>
  read?.through == null ? historyThrough : Math.min(historyThrough, read.through);

/**
 * The history shards and day pages the window needs. With a mark read in the last MARK_REUSE_MS: one round
 * trip reading exactly the shards and the days after the mark. Else the mark is read with the recent days
 * (guessing it is recent), older uncompacted days follow, and the mark is kept for the next reads.
 */
async function readDays(src: ReadSources, market: string, keys: readonly number[], first: number, last: number, withVolume: boolean): Promise<DaysRead> {
  const id = `${src.scope}|${market}`;
  const now = src.clock.now();
  let known = marks.get(id);
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
      first <= historyThrough ? historiesOf(src, market, keys, known.mark) : Promise.resolve(new Map<number, StampedHistory>()),
      pagesOf(src, market, keys, range(Math.max(first, historyThrough + 1), last), withVolume),
    ]);
    const [behind] = await Promise.all([
      behindPagesOf(src, market, keys, first, historyThrough, histories, withVolume),
      readUnseen(src, market, keys, first, historyThrough, histories),
    ]);
    return { historyThrough, histories, pages: [recent, behind] };
  }
  const recentFirst = Math.max(first, last - RECENT_DAYS + 1);
  const [mark, histories, recent] = await Promise.all([
    historyMark(src, market),
    // A window that lies wholly in the recent days never needs the history shards.
    first < recentFirst ? historiesOf(src, market, keys, null) : Promise.resolve(new Map<number, StampedHistory>()),
    pagesOf(src, market, keys, range(recentFirst, last), withVolume),
  ]);
  marks.set(id, { mark, at: now });
  const compactedThrough = mark ?? first - 1;
  // The recent days are always read from their pages here (the history shards are not read for them).
  const historyThrough = Math.min(compactedThrough, recentFirst - 1);
  const older = range(Math.max(first, compactedThrough + 1), recentFirst - 1);
  const [more, behind] = await Promise.all([
    pagesOf(src, market, keys, older, withVolume),
    behindPagesOf(src, market, keys, first, historyThrough, histories, withVolume),
    readUnseen(src, market, keys, first, historyThrough, histories),
  ]);
  return { historyThrough, histories, pages: [recent, more, behind] };
}

/**
 * The day pages a shard read stamped before `historyThrough` lacks (a replica that has not seen the last
 * compaction's write, beside the new mark): days after the oldest such stamp up to `historyThrough`, for the
 * keys of those shards only. None read when every shard is stamped at or past it (the normal case).
 */
async function behindPagesOf(
  src: ReadSources,
  market: string,
  keys: readonly number[],
  first: number,
  historyThrough: number,
  histories: ReadonlyMap<number, StampedHistory>,
  withVolume: boolean,
): Promise<Map<number, ItemDays>> {
  const behind = keys.filter((k) => throughOf(histories.get(shardOf(k, HISTORY_SHARDS)), historyThrough) < historyThrough);
  if (behind.length === 0) return new Map();
  const from = Math.min(...behind.map((k) => throughOf(histories.get(shardOf(k, HISTORY_SHARDS)), historyThrough))) + 1;
  return pagesOf(src, market, behind, range(Math.max(first, from), historyThrough), withVolume);
}

/**
 * Shards read as never written (no stamp, no page) while the window takes days up to `historyThrough` from
 * them: a replica may not have seen a compaction's first write of the shard, so each is read again strongly
 * consistent (`src.latest`) and replaced in `histories`. In the normal case only keys whose shard holds no
 * history at all pay it (one small read); a stamped shard, even empty, is never read again.
 */
async function readUnseen(
  src: ReadSources,
  market: string,
  keys: readonly number[],
  first: number,
  historyThrough: number,
  histories: Map<number, StampedHistory>,
): Promise<void> {
  const latest = src.latest;
  if (!latest || first > historyThrough) return;
  const unseen = [...histories].filter(([, h]) => h.through === null && h.page.size === 0).map(([s]) => s);
  await Promise.all(
    unseen.map(async (s) => {
      const read = await latest.historyShard(
        market,
        s,
        keys.filter((k) => shardOf(k, HISTORY_SHARDS) === s),
      );
      histories.set(s, { page: read.parts.length === 0 ? new Map() : decodeHistoryParts(read.parts), through: null });
    }),
  );
}

/** The history shards holding `keys`, by shard (a split shard: only the parts holding them), with their stamps; cached under `mark` when not null. */
async function historiesOf(src: ReadSources, market: string, keys: readonly number[], mark: number | null): Promise<Map<number, StampedHistory>> {
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
