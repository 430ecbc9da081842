/**
 * The close and quantity columns of candle pages (page-codec.ts's layout), read without the rest: a page's
 * head (`c`) of the split layout, or the first columns of a whole page stored before it. The recent series'
 * fold reads thousands of them, so consecutive heads of one shard share their keys and whole pages are
 * inflated only as far as those columns reach.
 */
import { inflateRawSync, constants as zlibConstants } from 'node:zlib';
import { Reader, readUvars } from './page-columns';
import { deflatedBody, Kind, open, payload } from './page-frame';

/**
 * The closes and quantities of a stored candle page shard of either layout: the head alone when it has one.
 * `like`, another page of the same shard decoded before: when this head lists the same keys (byte for byte,
 * as a market's hour pages mostly do), its keys array is shared rather than decoded again.
 */
export function decodeCandlePartsCloses(item: { c?: Uint8Array; d?: Uint8Array }, like?: CandleCloses): CandleCloses {
  if (item.c !== undefined) return readHeadLike(payload(item.c, Kind.CandleHead), like);
  if (item.d === undefined) throw new RangeError('not a candle page');
  return decodeCandleCloses(item.d);
}

/**
 * One key shard's close and quantity columns over several periods, key-major: key i's value of `periods[j]`
 * at `i * periods.length + j`. That is the recent series' own layout (each key's points together), so the cold
 * fold copies a key's points in one run instead of gathering them from a column per period.
 */
export interface ShardBlock {
  shards: number;
  residue: number;
  keys: Float64Array;
  /** The periods read, ascending; every one of them lists exactly `keys`. */
  periods: Int32Array;
  close: Float64Array;
  quantity: Float64Array;
}

/** One key shard over several periods: one block when every period lists the same keys, else each period's columns. */
export type ShardCloses = { block: ShardBlock } | { runs: Map<number, CandleCloses> };

/**
 * The closes of one key shard's stored pages over several periods (`[period, item]`, any order). A market's
 * hour pages mostly list the same keys, byte for byte: then each head's columns are decoded straight into one
 * key-major block (no column arrays per period: the cold series reads thousands of heads). Otherwise, or for
 * pages stored before the split (no head), each period's columns, as `decodeCandlePartsCloses` gives them.
 */
export function decodeShardCloses(items: ReadonlyArray<readonly [period: number, item: { c?: Uint8Array; d?: Uint8Array }]>): ShardCloses {
  const sorted = [...items].sort((a, b) => a[0] - b[0]);
  const block = sorted.length > 0 ? readBlock(sorted) : undefined;
  if (block) return { block };
  const runs = new Map<number, CandleCloses>();
  let like: CandleCloses | undefined;
  for (const [period, item] of sorted) {
    like = decodeCandlePartsCloses(item, like);
    runs.set(period, like);
  }
  return { runs };
}

/** The heads of `items` (periods ascending) as one block; undefined as soon as one has no head or other keys. */
function readBlock(items: ReadonlyArray<readonly [number, { c?: Uint8Array }]>): ShardBlock | undefined {
  const cols = items.length;
  let block: ShardBlock | undefined;
  let keyBytes: Buffer | undefined;
  for (let j = 0; j < cols; j++) {
    const c = items[j][1].c;
    if (c === undefined) return undefined;
    const buf = payload(c, Kind.CandleHead);
    const r = new Reader(buf);
    const { shards, residue, n, from } = headPrefix(r);
    if (block === undefined || keyBytes === undefined) {
      if (n > r.remaining()) throw new RangeError('corrupt page: key count');
      const keys = readKeyDeltas(r, n, shards, residue);
      if (n > r.remaining()) throw new RangeError('corrupt page: candle count');
      keyBytes = Buffer.from(buf.buffer, buf.byteOffset + from, r.offset - from);
      block = { shards, residue, keys, periods: Int32Array.from(items, ([p]) => p), close: new Float64Array(n * cols), quantity: new Float64Array(n * cols) };
    } else {
      const same = shards === block.shards && residue === block.residue && n === block.keys.length;
      if (!same || from + keyBytes.length > buf.length || !keyBytes.equals(Buffer.from(buf.buffer, buf.byteOffset + from, keyBytes.length))) return undefined;
      r.skip(keyBytes.length);
    }
    r.uvarsInto(block.close, n, j, cols);
    r.uvarsInto(block.quantity, n, j, cols);
    r.end();
  }
  return block;
}

/** `n` ascending keys of shard `residue` of `shards`, written as deltas of `(key - residue) / shards`. */
function readKeyDeltas(r: Reader, n: number, shards: number, residue: number): Float64Array {
  const keys = new Float64Array(n);
  for (let i = 0, compact = 0; i < n; i++) {
    compact += r.uvar();
    keys[i] = compact * shards + residue;
  }
  return keys;
}

/** The encoded key section behind a keys array a head gave (to recognise the same keys in the next head). */
const keyBytesOf = new WeakMap<Float64Array, Uint8Array>();

/** A head's start, shard count, residue and key count, read; `from`: where its key section begins. */
function headPrefix(r: Reader): { start: number; shards: number; residue: number; n: number; from: number } {
  const start = r.uvar();
  const shards = 2 ** r.u8();
  const residue = r.uvar();
  const n = r.uvar();
  return { start, shards, residue, n, from: r.offset };
}

function readHeadLike(buf: Uint8Array, like: CandleCloses | undefined): CandleCloses {
  const { shards, residue, n, from } = headPrefix(new Reader(buf));
  const known = like && like.shards === shards && like.residue === residue && like.keys.length === n ? keyBytesOf.get(like.keys) : undefined;
  // n varints equal byte for byte are the same n keys (a varint ends where its bytes say), so they are skipped.
  if (known && from + known.length <= buf.length && Buffer.from(buf.buffer, buf.byteOffset + from, known.length).equals(known)) {
    const rest = new Reader(buf.subarray(from + known.length));
    if (n > rest.remaining()) throw new RangeError('corrupt page: candle count');
    const out = { shards, residue, keys: (like as CandleCloses).keys, close: readUvars(rest, n), quantity: readUvars(rest, n) };
    rest.end();
    return out;
  }
  const head = new Reader(buf);
  const out = readCloses(head);
  head.end();
  keyBytesOf.set(out.keys, buf.slice(from, from + keySectionLength(buf, from, n)));
  return out;
}

/** Bytes taken by `n` varints from `at`. */
function keySectionLength(buf: Uint8Array, at: number, n: number): number {
  let i = at;
  for (let k = 0; k < n && i < buf.length; i++) if (buf[i] < 0x80) k++;
  return i - at;
}

/** The close and quantity columns of a candle page, keys ascending (all keys of one shard, `key % shards = residue`). */
export interface CandleCloses {
  /** The page's key shard count and the residue of its keys (`key % shards`). */
  shards: number;
  residue: number;
  keys: Float64Array;
  close: Float64Array;
  quantity: Float64Array;
}

/**
 * Decodes only a candle page's keys, closes and quantities (the first columns; the rest is not read): the
 * recent-series fold reads hundreds of whole-market hour pages and needs nothing else, so it skips building
 * a Candle object per key and hour. Same values as `decodeCandles` gives for those fields.
 *
 * Those columns are often about half of a page, so a deflated page is first inflated only in part (inflating
 * a prefix of a deflate stream gives a prefix of its bytes): the share the columns took of the last page
 * inflated whole, plus a margin, since pages read one after another are alike. When they do not fit in that
 * part, reading them runs out of bytes (a RangeError) and the page is inflated whole; when they fill most of
 * a page (candles without extremes), no part is tried. Either way the values are the whole page's.
 */
export function decodeCandleCloses(buf: Uint8Array): CandleCloses {
  const body = deflatedBody(buf, Kind.Candles);
  if (body === undefined) return readCloses(open(buf, Kind.Candles));
  if (closesShare < PART_UP_TO) {
    try {
      return readCloses(new Reader(inflateRawSync(body.subarray(0, Math.ceil(body.length * closesShare)), { finishFlush: zlibConstants.Z_SYNC_FLUSH })));
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
  }
  const whole = inflateRawSync(body);
  const r = new Reader(whole);
  const out = readCloses(r);
  closesShare = r.offset / whole.length + CLOSES_MARGIN;
  return out;
}

/** The part of a deflated candle page inflated first (a share of its deflated bytes), learnt from the last whole page. */
let closesShare = 0.6;
const CLOSES_MARGIN = 0.08;
/** Above this share a part saves too little to be worth a second inflation when it falls short. */
const PART_UP_TO = 0.85;

function readCloses(r: Reader): CandleCloses {
  const { keys, close, quantity, shards, residue } = readHead(r);
  return { shards, residue, keys, close, quantity };
}

/** A candle page's first columns: start, keys (with the shard count and residue), closes and quantities. */
export function readHead(r: Reader): CandleCloses & { start: number } {
  // readKeys, keeping the shard count and residue it reads.
  const { start, shards, residue, n } = headPrefix(r);
  if (n > r.remaining()) throw new RangeError('corrupt page: key count');
  const keys = readKeyDeltas(r, n, shards, residue);
  if (keys.length > r.remaining()) throw new RangeError('corrupt page: candle count');
  const close = readUvars(r, keys.length);
  const quantity = readUvars(r, keys.length);
  return { start, shards, residue, keys, close, quantity };
}
