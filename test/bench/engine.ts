/**
 * CPU side of the market engine benchmark: book validation against bare JSON.parse, the in-memory merge of a
 * complete book (decode pages → derive → merge rows, candles, volume → encode pages), and packed page sizes
 * with the write and read units they imply. Run alone with `npx tsx test/bench/engine.ts`.
 */
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { DAY_MS, dayOf } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import { type Book, parseBook } from '../../shared/domain/book';
import { bookTransition } from '../../shared/domain/book-current';
import { type CandlePage, type CandleRes, applyScanToCandles, periodOf, periodStart } from '../../shared/domain/candles';
import { deriveScan } from '../../shared/domain/derived-scan';
import { type RowTable, mergeScan } from '../../shared/domain/merge';
import { type VolumePage, addVolume, estimateVolume } from '../../shared/domain/volume-estimate';
import { readBody } from '../../shared/http/body';
import { decodeCandles, decodeRows, decodeVolume, encodeCandleShards, encodeHistory, encodeRowShards, encodeVolumeShards } from '../../shared/store/page-codec';
import { SHARD_LAYOUT, shardsTouched, splitShards } from '../../shared/store/shard-layout';

/** The page layout under test: key shards per page type (powers of two). */
export const LAYOUT = SHARD_LAYOUT;
/** Bytes of an item besides its page attribute: pk, sk, attribute names, ttl (generous). */
export const ITEM_OVERHEAD = 100;
const KB = 1024;
const READER = 'a1b2c3d4e5f60718';

export interface ValidationFigures {
  entries: number;
  gzipBytes: number;
  jsonBytes: number;
  /** decompress + parse + validate, median CPU ms. */
  ms: number;
  /** bare JSON.parse of the same text, median CPU ms. */
  jsonParseMs: number;
  ratio: number;
  /** The same two medians in wall-clock ms (inflated when the machine is busy). */
  wallMs: number;
  jsonParseWallMs: number;
}

/** CPU and wall ms of one call. CPU time (user + system of this process) is what a busy host cannot inflate. */
function measure(fn: () => void): { cpu: number; wall: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { cpu: (d.user + d.system) / 1000, wall };
}

/** Spec upload path: gunzip + parseBook of a 200000-entry book vs bare JSON.parse (target ratio <= 2.5). */
export function benchValidation(runs = 7): ValidationFigures {
  const gen = new MarketGenerator({ keys: 60_000, entries: 206_000, seed: 11 });
  const full = gen.nextBook();
  const entries = full.entries.slice(0, 200_000);
  const book: Book = { ...full, entries, auctions: entries.reduce((s, e) => s + e[4], 0) };
  const text = JSON.stringify(book);
  const gz = gzipSync(text);
  const ours: { cpu: number; wall: number }[] = [];
  const bare: { cpu: number; wall: number }[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const b = measure(() => JSON.parse(text));
    let parsed: Book | undefined;
    const o = measure(() => {
      parsed = parseBook(readBody(gz, 'gzip'), book.at);
    });
    if (parsed?.entries.length !== 200_000) throw new Error('validation bench parsed the wrong book');
    if (i > 0) {
      bare.push(b);
      ours.push(o);
    }
  }
  const ms = median(ours.map((x) => x.cpu));
  const jsonParseMs = median(bare.map((x) => x.cpu));
  return {
    entries: entries.length,
    gzipBytes: gz.length,
    jsonBytes: text.length,
    ms,
    jsonParseMs,
    ratio: ms / jsonParseMs,
    wallMs: median(ours.map((x) => x.wall)),
    jsonParseWallMs: median(bare.map((x) => x.wall)),
  };
}

/** A market's stored pages, encoded as they would sit in DynamoDB: shard → page, per period where periodic. */
interface StoredMarket {
  rows: Map<number, Uint8Array>;
  candles: Record<CandleRes, Map<number, Map<number, Uint8Array>>>;
  volume: Map<number, Map<number, Uint8Array>>;
  book: Book | null;
}

interface MergeWrite {
  type: 'rows' | CandleRes | 'volume';
  bytes: number;
}

/** One merge the way the merge Lambda will do it, minus I/O: decode touched pages, apply, encode them. */
function mergeBook(store: StoredMarket, book: Book, now: number): MergeWrite[] {
  const writes: MergeWrite[] = [];
  const scan = deriveScan(book);
  const rows: RowTable = new Map();
  for (const buf of store.rows.values()) decodeRows(buf, rows);
  const merged = mergeScan(rows, scan, READER, now);
  const rowPages = encodeRowShards(rows, LAYOUT.rows, shardsTouched(merged.changed, LAYOUT.rows));
  for (const [shard, b] of rowPages) {
    store.rows.set(shard, b);
    writes.push({ type: 'rows', bytes: b.length });
  }
  for (const res of ['m1', 'h1', 'd1'] as const) {
    const period = periodOf(res, scan.at);
    const page: CandlePage = new Map();
    for (const buf of store.candles[res].get(period)?.values() ?? []) decodeCandles(buf, page);
    applyScanToCandles(page, scan);
    const touched = shardsTouched(
      scan.items.map((i) => i[0]),
      LAYOUT[res],
    );
    const bufs = encodeCandleShards(page, periodStart(res, period), LAYOUT[res], touched);
    store.candles[res].set(period, new Map([...(store.candles[res].get(period) ?? []), ...bufs]));
    for (const b of bufs.values()) writes.push({ type: res, bytes: b.length });
  }
  const move = bookTransition(store.book, book);
  if (move.volume && store.book) {
    const day = dayOf(book.at);
    const page: VolumePage = new Map();
    for (const buf of store.volume.get(day)?.values() ?? []) decodeVolume(buf, page);
    const estimates = estimateVolume(store.book.entries, book.entries);
    addVolume(page, estimates);
    const bufs = encodeVolumeShards(
      page,
      LAYOUT.volume,
      shardsTouched(
        estimates.map((e) => e[0]),
        LAYOUT.volume,
      ),
    );
    store.volume.set(day, new Map([...(store.volume.get(day) ?? []), ...bufs]));
    for (const b of bufs.values()) writes.push({ type: 'volume', bytes: b.length });
  }
  if (move.replaces) store.book = book;
  return writes;
}

const emptyStore = (): StoredMarket => ({ rows: new Map(), candles: { m1: new Map(), h1: new Map(), d1: new Map() }, volume: new Map(), book: null });
const cloneStore = (s: StoredMarket): StoredMarket => ({
  rows: new Map(s.rows),
  candles: { m1: new Map(s.candles.m1), h1: new Map(s.candles.h1), d1: new Map(s.candles.d1) },
  volume: new Map(s.volume),
  book: s.book,
});

export interface MergeFigures {
  keys: number;
  entries: number;
  scanItems: number;
  /** Median CPU ms of the whole in-memory merge of a complete book after a previous one, encoding included. */
  ms: number;
  /** The same in wall-clock ms. */
  wallMs: number;
}

/** Merge CPU of a 60000-entry complete book of a 20000-key market after a previous one (target <= 250 ms). */
export function benchMergeCpu(runs = 7): MergeFigures {
  const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 5 });
  const first = asParsed(gen.nextBook());
  const base = emptyStore();
  mergeBook(base, first, first.at + 1_000);
  // The merge Lambda reads books from stored JSON; parsed arrays are what its loops see, so bench on those.
  const second = asParsed(gen.nextBook());
  const times: { cpu: number; wall: number }[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const store = cloneStore(base);
    const m = measure(() => mergeBook(store, second, second.at + 1_000));
    if (i > 0) times.push(m);
  }
  return {
    keys: gen.keys.length,
    entries: second.entries.length,
    scanItems: deriveScan(second).items.length,
    ms: median(times.map((x) => x.cpu)),
    wallMs: median(times.map((x) => x.wall)),
  };
}

export interface PageSizeRow {
  type: string;
  shards: number;
  keys: number;
  bytes: number;
  bytesPerKey: number;
  /** Write units to write every shard once (1 per started KB per item, item overhead included). */
  wcu: number;
}

export interface PageSizeFigures {
  /** Pages written by a complete-book merge after a previous one, then one sealed history day. */
  pages: PageSizeRow[];
  /** Write units of one complete-book merge after a previous one, scaled to 20000 keys. */
  wcuPerMerge: number;
  /** Write units of sealing one day into the fine history shards, scaled to 20000 keys. */
  wcuPerSealedDay: number;
  /** Read units of one item's row plus 90 days of day points (and volume), eventually consistent. */
  rcuSingleItem: number;
  rcuSingleItemStrong: number;
}

/**
 * Packed page sizes on generated data and the units they imply for the recommended layout: rows, m1, h1, d1
 * and volume in coarse shards (rewritten by every merge), finished days copied once into fine history shards
 * (one item per shard and day, read with one Query per item). `days` sealed history days are simulated with
 * `booksPerDay` complete books each; an item's 90-day read repeats the simulated days' measured sizes when
 * fewer than 90 are simulated (`--days 90` simulates all of them, slowly).
 */
export function pageSizes(days = 30, booksPerDay = 3): PageSizeFigures {
  const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 5, stepMs: 5 * 60_000 });
  const store = emptyStore();
  const first = asParsed(gen.nextBook());
  mergeBook(store, first, first.at + 1_000);
  const second = asParsed(gen.nextBook());
  const writes = mergeBook(store, second, second.at + 1_000);
  const keys = gen.keys.length;
  const scale = 20_000 / keys;
  const listed = deriveScan(second).items.length;
  const pages: PageSizeRow[] = [];
  for (const type of ['rows', 'm1', 'h1', 'd1', 'volume'] as const) {
    const list = writes.filter((w) => w.type === type).map((w) => w.bytes);
    pages.push(pageRow(type, list, type === 'rows' || type === 'volume' ? keys : listed));
  }
  const wcuPerMerge = Math.ceil(pages.reduce((s, p) => s + p.wcu, 0) * scale);
  const history = sealedDays(gen, store, days, booksPerDay);
  pages.push(history.day);
  // One item's read: its rows shard (GetItem); the recent, not yet sealed days (today and yesterday) from
  // the coarse d1 and volume pages (one Query each, sizes summed); the sealed days from its history shard
  // (one Query over up to 90 items, sizes summed). Sizes are shard averages.
  const shardSize = (p: PageSizeRow): number => p.bytes / p.shards + ITEM_OVERHEAD;
  const units = (bytes: number): number => Math.ceil(bytes / 4096);
  const strong =
    units(shardSize(pages[0])) +
    units(2 * shardSize(pages[3])) +
    units(2 * shardSize(pages[4])) +
    units(history.perShardPerDay.reduce((s, b) => s + b + ITEM_OVERHEAD, 0));
  return { pages, wcuPerMerge, wcuPerSealedDay: Math.ceil(history.day.wcu * scale), rcuSingleItem: strong / 2, rcuSingleItemStrong: strong };
}

function pageRow(type: string, sizes: number[], keys: number): PageSizeRow {
  const bytes = sizes.reduce((s, b) => s + b, 0);
  const wcu = sizes.reduce((s, b) => s + Math.ceil((b + ITEM_OVERHEAD) / KB), 0);
  return { type, shards: sizes.length, keys, bytes, bytesPerKey: bytes / keys, wcu };
}

/**
 * Simulates `days` finished days and encodes each into the fine history shards. Returns the average day
 * (as a page row) and the average bytes per shard of every day, the sizes one item's history Query sums.
 */
function sealedDays(gen: MarketGenerator, store: StoredMarket, days: number, booksPerDay: number): { day: PageSizeRow; perShardPerDay: number[] } {
  const d0 = dayOf(store.book?.at ?? 0) + 1;
  const shards = LAYOUT.history;
  const perShardPerDay: number[] = [];
  let totalSizes: number[] = [];
  let prev: Book | null = store.book;
  for (let day = d0; day < d0 + days; day++) {
    const candles: CandlePage = new Map();
    const volume: VolumePage = new Map();
    for (let q = 0; q < booksPerDay; q++) {
      const book = gen.nextBook({ at: day * DAY_MS + Math.floor(((q + 0.5) * DAY_MS) / booksPerDay) });
      applyScanToCandles(candles, deriveScan(book));
      if (prev) addVolume(volume, estimateVolume(prev.entries, book.entries));
      prev = book;
    }
    const c = splitShards(candles, shards);
    const v = splitShards(volume, shards);
    const sizes = c.map((cs, s) => encodeHistory(new Map([[day, { candles: cs, volume: v[s] }]]), shards).length);
    perShardPerDay.push(sizes.reduce((a, b) => a + b, 0) / shards);
    totalSizes = totalSizes.concat(sizes);
  }
  store.book = prev;
  const avgDay = pageRow(`history day`, totalSizes, gen.keys.length * days);
  avgDay.shards = shards;
  avgDay.bytes = Math.round(avgDay.bytes / days);
  avgDay.bytesPerKey = avgDay.bytes / gen.keys.length;
  avgDay.keys = gen.keys.length;
  avgDay.wcu = Math.round(avgDay.wcu / days);
  // Up to 90 retained days make one item's history read; extrapolate when fewer were simulated.
  while (perShardPerDay.length < 90) perShardPerDay.push(perShardPerDay[perShardPerDay.length % days]);
  return { day: avgDay, perShardPerDay };
}

const asParsed = (book: Book): Book => JSON.parse(JSON.stringify(book)) as Book;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[(s.length - 1) >> 1];
}

const fmt = (n: number, d = 1): string => n.toFixed(d);

function main(): void {
  const v = benchValidation();
  console.log('validation (200000-entry gzip book)');
  console.log(`  gzip ${v.gzipBytes} B, json ${v.jsonBytes} B`);
  console.log(`  gunzip+parse+validate ${fmt(v.ms)} ms CPU (${fmt(v.wallMs)} wall), bare JSON.parse ${fmt(v.jsonParseMs)} ms CPU (${fmt(v.jsonParseWallMs)} wall)`);
  console.log(`  ratio ${fmt(v.ratio, 2)} (target <= 2.5)`);
  const m = benchMergeCpu();
  console.log(`merge: ${fmt(m.ms)} ms CPU (${fmt(m.wallMs)} wall) for ${m.entries} entries, ${m.scanItems} scan items, ${m.keys} keys (target <= 250 ms)`);
  const daysArg = process.argv.indexOf('--days');
  const p = pageSizes(daysArg > 0 ? Number(process.argv[daysArg + 1]) : undefined);
  console.log('page           shards   keys      bytes   B/key    WCU');
  for (const r of p.pages) {
    console.log(`${r.type.padEnd(15)}${String(r.shards).padStart(6)}${String(r.keys).padStart(7)}${String(r.bytes).padStart(11)}${fmt(r.bytesPerKey, 2).padStart(8)}${String(r.wcu).padStart(7)}`);
  }
  console.log(`WCU per complete-book merge (20000 keys): ${p.wcuPerMerge} (target <= 1500); per sealed history day: ${p.wcuPerSealedDay}`);
  console.log(`RCU per single-item read (row + 90 days): ${p.rcuSingleItem} eventual, ${p.rcuSingleItemStrong} strong (target <= 30)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
