import { DAY_MS } from '../clock';
import type { Candle, CandlePage } from '../domain/candles';
import type { HistoryDay, HistoryPage } from '../domain/history';
import type { Row, RowTable } from '../domain/merge';
import type { Volume, VolumePage } from '../domain/volume-estimate';
import { CandleColumns, HIGH, LOW, OPEN, SPAN } from './candle-columns';
import { readHead } from './page-closes';
import {
  dictIndexes,
  pick,
  type Reader,
  readDictColumn,
  readKeys,
  readRle,
  readSortedInts,
  readUvars,
  sortedKeys,
  Writer,
  writeDictColumn,
  writeKeys,
  writeRle,
  writeSortedInts,
} from './page-columns';
import { Kind, open, seal, sealAsync } from './page-frame';
import { checkShards } from './shard-layout';

/**
 * Packed pages (DESIGN: Storage of market data): the binary encoding of a rows shard, a candle page, a volume
 * page and a compacted day-history page. Every write unit is 1 KB, so the layout is column-oriented: keys as
 * ascending deltas (with the shard's residue divided out), times as small per-page dictionaries whose indexes
 * are run-length coded (one merge gives most keys the same `at`), candle extremes as non-negative offsets from
 * the close behind a flag. The payload is raw-deflated when that makes it smaller.
 *
 * Layout: the frame (page-frame.ts: version and kind, deflate flag), then the payload: shard bits, residue,
 * count, key deltas, then the kind's columns. A history page is a list of day sections
 * (the union of the day's candle and volume keys once, a presence column, then both column sets).
 *
 * A stored candle page shard (`encodeCandleParts`) is two parts, each framed and deflated on its own: the head
 * (`c`: start, keys, closes, quantities) and the rest (`d`: count, then the other columns), so the recent
 * series' fold reads only the head. Shards stored before that hold the whole page under `d` alone; every
 * reader takes both (`decodeCandleParts` here, `decodeCandlePartsCloses` in page-closes.ts).
 */

/** Encodes a rows shard: key, price or null, quantity, at, changedAt, reader. `shards` is the shard count used. */
export function encodeRows(rows: ReadonlyMap<number, Row>, shards = 1): Uint8Array {
  return rowsPage(rows, sortedKeys(rows), shards);
}

/**
 * Encodes a market's table as its row shards in one pass (no per-shard maps): shard → page, for every shard
 * that has rows, or only for `only` (e.g. `shardsTouched(merge.changed, shards)`).
 */
export function encodeRowShards(rows: ReadonlyMap<number, Row>, shards: number, only?: Iterable<number>): Map<number, Uint8Array> {
  return mapShards(shardKeys(rows, shards, only), (keys) => rowsPage(rows, keys, shards));
}

/** `encodeRowShards`, deflating on libuv's pool (page-frame.ts `sealAsync`): the same bytes. */
export async function encodeRowShardsAsync(rows: ReadonlyMap<number, Row>, shards: number, only?: Iterable<number>): Promise<Map<number, Uint8Array>> {
  const lists = shardKeys(rows, shards, only);
  const sealed = [...lists.keys()]
    .sort((a, b) => a - b)
    .map(async (shard) => [shard, await sealAsync(Kind.Rows, rowsPayload(rows, lists.get(shard) as number[], shards))] as const);
  return new Map(await Promise.all(sealed));
}

/** Decodes a rows shard, into `into` when given (to gather a table from its shards without copying). */
export function decodeRows(buf: Uint8Array, into: RowTable = new Map()): RowTable {
  const r = open(buf, Kind.Rows);
  const keys = readKeys(r);
  const n = keys.length;
  const prices = readUvars(r, n);
  const quantities = readUvars(r, n);
  const ats = readDictColumn(r, n);
  const changed = readDictColumn(r, n);
  const readers: string[] = [];
  for (let i = r.uvar(); i > 0; i--) readers.push(r.str());
  const readerIdx = readRle(r, n);
  r.end();
  for (let i = 0; i < n; i++) {
    into.set(keys[i], {
      price: prices[i] === 0 ? null : prices[i] - 1,
      quantity: quantities[i],
      at: ats[i],
      reader: pick(readers, readerIdx[i]),
      changedAt: changed[i],
    });
  }
  return into;
}

/** Encodes one period's candle page; `start` is the period start in ms (every `at` in the page is >= it). */
export function encodeCandles(page: CandlePage, start: number, shards = 1): Uint8Array {
  return candlePage(page, sortedKeys(page), start, shards);
}

/** Encodes one period's candles as shard pages in one pass: shard → page (all non-empty shards, or `only`). */
export function encodeCandleShards(page: CandlePage, start: number, shards: number, only?: Iterable<number>): Map<number, Uint8Array> {
  return mapShards(shardKeys(page, shards, only), (keys) => candlePage(page, keys, start, shards));
}

/** Decodes a candle page, into `into` when given. */
export function decodeCandles(buf: Uint8Array, into: CandlePage = new Map()): { start: number; page: CandlePage } {
  const r = open(buf, Kind.Candles);
  const start = r.uvar();
  const keys = readKeys(r);
  const list = readCandleColumns(r, keys.length, start);
  r.end();
  for (let i = 0; i < keys.length; i++) into.set(keys[i], list[i]);
  return { start, page: into };
}

/** A candle page shard as stored: `c` the head and `d` the rest, or (stored before the split) `d` the whole page alone. */
export interface CandleParts {
  c?: Uint8Array;
  d: Uint8Array;
}

/**
 * Encodes one period's candles as shard parts in one pass: shard → head and rest (all non-empty shards, or
 * `only`). Each shard's candles are gathered once into typed columns (candle-columns.ts) reused from shard
 * to shard, and both parts written from them: the merge encodes three 20000-key pages per book, and per-candle
 * arrays were most of its garbage. The bytes are those of `writeCloseColumns` + `writeCandleRest`.
 */
export function encodeCandleParts(page: CandlePage, start: number, shards: number, only?: Iterable<number>): Map<number, Required<CandleParts>> {
  const out = new Map<number, Required<CandleParts>>();
  for (const [shard, head, rest] of candlePartPayloads(page, start, shards, only))
    out.set(shard, { c: seal(Kind.CandleHead, head), d: seal(Kind.CandleRest, rest) });
  return out;
}

/** `encodeCandleParts`, deflating on libuv's pool (page-frame.ts `sealAsync`): the same bytes. */
export async function encodeCandlePartsAsync(
  page: CandlePage,
  start: number,
  shards: number,
  only?: Iterable<number>,
): Promise<Map<number, Required<CandleParts>>> {
  const sealed = candlePartPayloads(page, start, shards, only).map(
    async ([shard, head, rest]) => [shard, { c: await sealAsync(Kind.CandleHead, head), d: await sealAsync(Kind.CandleRest, rest) }] as const,
  );
  return new Map(await Promise.all(sealed));
}

/** Each shard's head and rest payloads, shards ascending. */
function candlePartPayloads(page: CandlePage, start: number, shards: number, only?: Iterable<number>): Array<[number, Writer, Writer]> {
  const lists = [...shardKeys(page, shards, only)].sort((a, b) => a[0] - b[0]);
  const cols = new CandleColumns(lists.reduce((m, [, keys]) => Math.max(m, keys.length), 0));
  return lists.map(([shard, keys]) => {
    const n = cols.gather(page, keys, start);
    const head = new Writer(16 + n * 8);
    head.uvar(start);
    writeKeys(head, keys, shards);
    cols.writeHead(head);
    const rest = new Writer(16 + n * 4);
    rest.uvar(n);
    cols.writeRest(rest);
    return [shard, head, rest];
  });
}

/** Decodes a stored candle page shard of either layout (the same candles), into `into` when given. */
export function decodeCandleParts(item: CandleParts, into: CandlePage = new Map()): { start: number; page: CandlePage } {
  if (item.c === undefined) return decodeCandles(item.d, into);
  const h = open(item.c, Kind.CandleHead);
  const { start, keys, close, quantity } = readHead(h);
  h.end();
  const r = open(item.d, Kind.CandleRest);
  if (r.uvar() !== keys.length) throw new RangeError('corrupt page: head and rest disagree');
  const list = readCandleRest(r, start, close, quantity);
  r.end();
  for (let i = 0; i < keys.length; i++) into.set(keys[i], list[i]);
  return { start, page: into };
}

/** Encodes one day's volume estimates. */
export function encodeVolume(page: VolumePage, shards = 1): Uint8Array {
  return volumePage(page, sortedKeys(page), shards);
}

/** Encodes one day's volume estimates as shard pages in one pass: shard → page (all non-empty, or `only`). */
export function encodeVolumeShards(page: VolumePage, shards: number, only?: Iterable<number>): Map<number, Uint8Array> {
  return mapShards(shardKeys(page, shards, only), (keys) => volumePage(page, keys, shards));
}

/** Decodes a volume page, into `into` when given. */
export function decodeVolume(buf: Uint8Array, into: VolumePage = new Map()): VolumePage {
  const r = open(buf, Kind.Volume);
  const keys = readKeys(r);
  const list = readVolumeColumns(r, keys.length);
  r.end();
  for (let i = 0; i < keys.length; i++) into.set(keys[i], list[i]);
  return into;
}

/** The volume of the `wanted` keys of one shard, added to the day's page `into` (a day's page gathers its shards). */
export function decodeVolumeOf(buf: Uint8Array, wanted: ReadonlySet<number>, into: VolumePage): VolumePage {
  for (const [k, v] of decodeVolume(buf)) if (wanted.has(k)) into.set(k, v);
  return into;
}

/** Encodes a compacted history page (days ascending; each a candle and a volume section). */
export function encodeHistory(page: HistoryPage, shards = 1): Uint8Array {
  const days = [...page.keys()].sort((a, b) => a - b);
  const w = new Writer(64 + days.length * 1024);
  w.uvar(days.length);
  let prev = 0;
  for (const day of days) {
    const d = page.get(day) as HistoryDay;
    w.uvar(day - prev);
    prev = day;
    writeDaySection(w, d, day * DAY_MS, shards);
  }
  return seal(Kind.History, w);
}

/** Decodes a compacted history page. */
export function decodeHistory(buf: Uint8Array): HistoryPage {
  const r = open(buf, Kind.History);
  const out: HistoryPage = new Map();
  let day = 0;
  for (let i = r.uvar(); i > 0; i--) {
    day += r.uvar();
    out.set(day, readDaySection(r, day * DAY_MS));
  }
  r.end();
  return out;
}

/**
 * Compaction (DESIGN hint: day history in fine shards): folds a finished day's candles and volume into a
 * history page and drops days before `firstKeptDay` (spec Retention: days before today - 90). Returns a new
 * page; the input is not changed.
 */
export function compactHistory(history: HistoryPage, day: number, candles: CandlePage, volume: VolumePage, firstKeptDay: number): HistoryPage {
  const out: HistoryPage = new Map();
  for (const [d, v] of history) if (d >= firstKeptDay && d !== day) out.set(d, v);
  if (day >= firstKeptDay && (candles.size > 0 || volume.size > 0)) out.set(day, { candles, volume });
  return out;
}

// ── sections ────────────────────────────────────────────────────────────────────────────

function rowsPage(rows: ReadonlyMap<number, Row>, keys: readonly number[], shards: number): Uint8Array {
  return seal(Kind.Rows, rowsPayload(rows, keys, shards));
}

function rowsPayload(rows: ReadonlyMap<number, Row>, keys: readonly number[], shards: number): Writer {
  const w = new Writer(16 + keys.length * 12);
  writeKeys(w, keys, shards);
  const list = keys.map((k) => rows.get(k) as Row);
  for (const r of list) w.uvar(r.price === null ? 0 : r.price + 1);
  for (const r of list) w.uvar(r.quantity);
  writeDictColumn(
    w,
    list.map((r) => r.at),
  );
  writeDictColumn(
    w,
    list.map((r) => r.changedAt),
  );
  const readerOf = list.map((r) => r.reader);
  const readers = [...new Set(readerOf)].sort();
  w.uvar(readers.length);
  for (const s of readers) w.str(s);
  writeRle(w, dictIndexes(readers, readerOf));
  return w;
}

function candlePage(page: CandlePage, keys: readonly number[], start: number, shards: number): Uint8Array {
  const w = new Writer(16 + keys.length * 10);
  w.uvar(start);
  writeKeys(w, keys, shards);
  writeCandleColumns(
    w,
    keys.map((k) => page.get(k) as Candle),
    start,
  );
  return seal(Kind.Candles, w);
}

function volumePage(page: VolumePage, keys: readonly number[], shards: number): Uint8Array {
  const w = new Writer(16 + keys.length * 6);
  writeKeys(w, keys, shards);
  writeVolumeColumns(
    w,
    keys.map((k) => page.get(k) as Volume),
  );
  return seal(Kind.Volume, w);
}

/**
 * Keys per shard, each list ascending; only the shards in `only` when given. The wanted keys are dealt to
 * their shards' ranges of one typed array (counted first), then each range sorts natively: no per-key map
 * lookup, and the merge encodes a whole 20000-key table or page per call.
 */
function shardKeys(map: ReadonlyMap<number, unknown>, shards: number, only?: Iterable<number>): Map<number, number[]> {
  checkShards(shards);
  const wantedList = only === undefined ? undefined : [...only];
  let wanted: Uint8Array | undefined;
  if (wantedList !== undefined) {
    wanted = new Uint8Array(shards);
    for (const shard of wantedList) if (shard >= 0 && shard < shards) wanted[shard] = 1;
  }
  // Shard counts are powers of two (checkShards) and keys non-negative integers: `key % shards` is the shard.
  const counts = new Uint32Array(shards + 1);
  for (const key of map.keys()) {
    if (!(key >= 0 && Number.isSafeInteger(key))) throw new RangeError(`not a page key: ${key}`);
    const shard = key % shards;
    if (wanted === undefined || wanted[shard] === 1) counts[shard + 1]++;
  }
  for (let s = 0; s < shards; s++) counts[s + 1] += counts[s];
  const all = new Float64Array(counts[shards]);
  const fill = counts.slice(0, shards);
  for (const key of map.keys()) {
    const shard = key % shards;
    if (wanted === undefined || wanted[shard] === 1) all[fill[shard]++] = key;
  }
  const lists = new Map<number, number[]>();
  for (let s = 0; s < shards; s++) if (counts[s + 1] > counts[s]) lists.set(s, Array.from(all.subarray(counts[s], counts[s + 1]).sort()));
  // A shard asked for but left empty still gets its (empty) page, so the store can overwrite the old one.
  if (wantedList !== undefined) for (const shard of wantedList) if (!lists.has(shard)) lists.set(shard, []);
  return lists;
}

function mapShards(lists: Map<number, number[]>, encode: (keys: number[]) => Uint8Array): Map<number, Uint8Array> {
  const out = new Map<number, Uint8Array>();
  for (const shard of [...lists.keys()].sort((a, b) => a - b)) out.set(shard, encode(lists.get(shard) as number[]));
  return out;
}

/** A history day: the union of its candle and volume keys once, a presence column, then both column sets. */
function writeDaySection(w: Writer, day: HistoryDay, start: number, shards: number): void {
  const union = new Map<number, number>();
  for (const k of day.candles.keys()) union.set(k, 1);
  for (const k of day.volume.keys()) union.set(k, (union.get(k) ?? 0) | 2);
  const keys = sortedKeys(union);
  writeKeys(w, keys, shards);
  writeRle(
    w,
    keys.map((k) => union.get(k) as number),
  );
  const candles: Candle[] = [];
  const volumes: Volume[] = [];
  for (const k of keys) {
    const c = day.candles.get(k);
    if (c) candles.push(c);
    const v = day.volume.get(k);
    if (v) volumes.push(v);
  }
  w.uvar(candles.length);
  writeCandleColumns(w, candles, start);
  writeVolumeColumns(w, volumes);
}

function readDaySection(r: Reader, start: number): HistoryDay {
  const keys = readKeys(r);
  const presence = readRle(r, keys.length);
  const candleList = readCandleColumns(r, r.uvar(), start);
  const volumeList = readVolumeColumns(r, keys.length - presence.filter((p) => p === 1).length);
  const candles: CandlePage = new Map();
  const volume: VolumePage = new Map();
  let c = 0;
  let v = 0;
  for (let i = 0; i < keys.length; i++) {
    if (presence[i] & 1) candles.set(keys[i], pick(candleList, c++));
    if (presence[i] & 2) volume.set(keys[i], pick(volumeList, v++));
  }
  if (c !== candleList.length || v !== volumeList.length) throw new RangeError('corrupt page: presence');
  return { candles, volume };
}

function writeCandleColumns(w: Writer, list: readonly Candle[], start: number): void {
  writeCloseColumns(w, list);
  writeCandleRest(w, list, start);
}

/** The close and quantity columns: a page's head (decodeCandleCloses reads up to their end). */
function writeCloseColumns(w: Writer, list: readonly Candle[]): void {
  for (const c of list) w.uvar(c.close);
  for (const c of list) w.uvar(c.quantity);
}

/** The columns after the closes: flags, extremes, open and the time dictionary. */
function writeCandleRest(w: Writer, list: readonly Candle[], start: number): void {
  const flags = list.map(
    (c) => (c.open !== c.close ? OPEN : 0) | (c.high !== c.close ? HIGH : 0) | (c.low !== c.close ? LOW : 0) | (c.openAt !== c.lastAt ? SPAN : 0),
  );
  writeRle(w, flags);
  for (let i = 0; i < list.length; i++) if (flags[i] & LOW) w.uvar(list[i].close - list[i].low);
  for (let i = 0; i < list.length; i++) if (flags[i] & HIGH) w.uvar(list[i].high - list[i].close);
  for (let i = 0; i < list.length; i++) if (flags[i] & OPEN) w.uvar(list[i].open - list[i].low);
  // One dictionary of offsets from the period start serves both times: a page sees few distinct scans.
  const offsets = new Set<number>();
  for (const c of list) {
    if (c.openAt < start || c.lastAt < start) throw new RangeError('candle time before its page start');
    offsets.add(c.lastAt - start);
    offsets.add(c.openAt - start);
  }
  const dict = [...offsets].sort((a, b) => a - b);
  writeSortedInts(w, dict);
  writeRle(
    w,
    dictIndexes(
      dict,
      list.map((c) => c.lastAt - start),
    ),
  );
  writeRle(
    w,
    dictIndexes(
      dict,
      list.filter((_, i) => flags[i] & SPAN).map((c) => c.openAt - start),
    ),
  );
}

function readCandleColumns(r: Reader, n: number, start: number): Candle[] {
  if (n > r.remaining()) throw new RangeError('corrupt page: candle count');
  const close = readUvars(r, n);
  const quantity = readUvars(r, n);
  return readCandleRest(r, start, close, quantity);
}

/** The candles from their closes and quantities (already read) and the rest of the columns. */
function readCandleRest(r: Reader, start: number, close: ArrayLike<number>, quantity: ArrayLike<number>): Candle[] {
  const n = close.length;
  const flags = readRle(r, n);
  const lowD = new Float64Array(n);
  const highD = new Float64Array(n);
  const openD = new Float64Array(n);
  let spans = 0;
  for (let i = 0; i < n; i++) if (flags[i] & LOW) lowD[i] = r.uvar();
  for (let i = 0; i < n; i++) if (flags[i] & HIGH) highD[i] = r.uvar();
  for (let i = 0; i < n; i++) if (flags[i] & OPEN) openD[i] = r.uvar();
  for (let i = 0; i < n; i++) if (flags[i] & SPAN) spans++;
  const dict = readSortedInts(r);
  const last = readRle(r, n);
  const opened = readRle(r, spans);
  const out = new Array<Candle>(n);
  for (let i = 0, s = 0; i < n; i++) {
    const low = close[i] - lowD[i];
    const lastAt = start + pick(dict, last[i]);
    out[i] = {
      open: flags[i] & OPEN ? low + openD[i] : close[i],
      high: close[i] + highD[i],
      low,
      close: close[i],
      quantity: quantity[i],
      openAt: flags[i] & SPAN ? start + pick(dict, opened[s++]) : lastAt,
      lastAt,
    };
  }
  return out;
}

function writeVolumeColumns(w: Writer, list: readonly Volume[]): void {
  for (let c = 0; c < 3; c++) for (const v of list) w.uvar(v[c]);
}

function readVolumeColumns(r: Reader, n: number): Volume[] {
  const listed = readUvars(r, n);
  const sold = readUvars(r, n);
  const expired = readUvars(r, n);
  const out = new Array<Volume>(n);
  for (let i = 0; i < n; i++) out[i] = [listed[i], sold[i], expired[i]];
  return out;
}
