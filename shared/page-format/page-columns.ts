/**
 * Column primitives of the packed page codec (page-codec.ts): LEB128 varints over safe integers, ascending key
 * deltas with the shard residue divided out, sorted dictionaries and run-length coded index columns. Kept apart
 * so the codec file holds only page layouts.
 */

import { checkShards } from './shard-layout';
import { getDelta, MAX_VARINT_BYTES, putDelta, varintEnd } from './varint';

export function writeKeys(w: Writer, keys: readonly number[], shards: number): void {
  checkShards(shards);
  const residue = keys.length > 0 ? keys[0] % shards : 0;
  w.u8(Math.log2(shards));
  w.uvar(residue);
  w.uvar(keys.length);
  let prev = 0;
  for (const key of keys) {
    if (key % shards !== residue) throw new RangeError(`key ${key} is not in shard ${residue} of ${shards}`);
    const compact = (key - residue) / shards;
    w.uvar(compact - prev);
    prev = compact;
  }
}

export function readKeys(r: Reader): Float64Array {
  const shards = 2 ** r.u8();
  const residue = r.uvar();
  const n = r.uvar();
  if (n > r.remaining()) throw new RangeError('corrupt page: key count');
  const keys = new Float64Array(n);
  let compact = 0;
  for (let i = 0; i < n; i++) {
    compact += r.uvar();
    keys[i] = compact * shards + residue;
  }
  return keys;
}

/** A time column as a sorted dictionary plus run-length coded indexes. */
export function writeDictColumn(w: Writer, values: number[]): void {
  const dict = [...new Set(values)].sort((a, b) => a - b);
  writeSortedInts(w, dict);
  writeRle(w, dictIndexes(dict, values));
}

/**
 * Each value's index in `dict` (which holds every value). Neighbouring values are mostly equal (one merge gives
 * most keys the same time), so the last lookup is reused before asking the map.
 */
export function dictIndexes<T>(dict: readonly T[], values: ArrayLike<T>): Uint32Array {
  const index = new Map(dict.map((v, i) => [v, i]));
  const out = new Uint32Array(values.length);
  let last: T | undefined;
  let lastIndex = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (lastIndex < 0 || v !== last) {
      last = v;
      lastIndex = index.get(v) as number;
    }
    out[i] = lastIndex;
  }
  return out;
}

export function readDictColumn(r: Reader, n: number): number[] {
  const dict = readSortedInts(r);
  const idx = readRle(r, n);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = pick(dict, idx[i]);
  return out;
}

export function writeSortedInts(w: Writer, values: readonly number[]): void {
  w.uvar(values.length);
  let prev = 0;
  for (const v of values) {
    w.uvar(v - prev);
    prev = v;
  }
}

export function readSortedInts(r: Reader): number[] {
  const n = r.uvar();
  if (n > r.remaining()) throw new RangeError('corrupt page: dictionary size');
  const out = new Array<number>(n);
  let v = 0;
  for (let i = 0; i < n; i++) out[i] = v += r.uvar();
  return out;
}

const PLAIN = 0;
const RUNS = 1;

/**
 * A small-integer column (indexes, flags), length known to the reader: run-length coded as (value, run) pairs
 * when that is shorter (most keys of a merge share a time), else plain varints (varied candle flags).
 */
export function writeRle(w: Writer, values: ArrayLike<number>): void {
  let plain = 0;
  let runs = 0;
  for (let i = 0; i < values.length; ) {
    let j = i + 1;
    while (j < values.length && values[j] === values[i]) j++;
    plain += (j - i) * uvarLength(values[i]);
    runs += uvarLength(values[i]) + uvarLength(j - i);
    i = j;
  }
  if (values.length === 0) return;
  if (plain <= runs) {
    w.u8(PLAIN);
    for (let i = 0; i < values.length; i++) w.uvar(values[i]);
    return;
  }
  w.u8(RUNS);
  for (let i = 0; i < values.length; ) {
    let j = i + 1;
    while (j < values.length && values[j] === values[i]) j++;
    w.uvar(values[i]);
    w.uvar(j - i);
    i = j;
  }
}

export function readRle(r: Reader, n: number): Uint32Array {
  const out = new Uint32Array(n);
  if (n === 0) return out;
  const mode = r.u8();
  if (mode === PLAIN) {
    for (let i = 0; i < n; i++) out[i] = r.uvar();
    return out;
  }
  if (mode !== RUNS) throw new RangeError('corrupt page: column mode');
  let i = 0;
  while (i < n) {
    const v = r.uvar();
    const run = r.uvar();
    if (run < 1 || i + run > n) throw new RangeError('corrupt page: run length');
    out.fill(v, i, i + run);
    i += run;
  }
  return out;
}

const uvarLength = (v: number): number => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : Math.ceil(Math.log2(v + 1) / 7));

export function readUvars(r: Reader, n: number): Float64Array {
  const out = new Float64Array(n);
  r.uvarsInto(out, n);
  return out;
}

export function sortedKeys(map: ReadonlyMap<number, unknown>): number[] {
  // A typed array sorts numbers natively and fast; the plain array is what the column writers map over.
  const keys = new Float64Array(map.size);
  let i = 0;
  for (const k of map.keys()) keys[i++] = k;
  return Array.from(keys.sort());
}

export function pick<T>(list: readonly T[], i: number): T {
  if (i >= list.length) throw new RangeError('corrupt page: dictionary index');
  return list[i];
}

export class Writer {
  private buf: Uint8Array;
  private pos = 0;

  constructor(size: number) {
    this.buf = new Uint8Array(Math.max(64, size));
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }

  /** Unsigned LEB128 of a safe integer (or 2^53, the null-shifted top price). */
  uvar(v: number): void {
    if (!(v >= 0) || v > 2 ** 53 || v !== Math.floor(v)) throw new RangeError(`not an unsigned integer: ${v}`);
    this.room(8);
    const buf = this.buf;
    while (v >= 0x80000000) {
      buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    while (v >= 0x80) {
      buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[this.pos++] = v;
  }

  /** Zigzag varint of `value - prev` (any two safe integers, exactly). */
  delta(value: number, prev = 0): void {
    this.room(MAX_VARINT_BYTES);
    this.pos = putDelta(this.buf, this.pos, value, prev);
  }

  str(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.uvar(bytes.length);
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export class Reader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  remaining(): number {
    return this.buf.length - this.pos;
  }

  /** Bytes read so far. */
  get offset(): number {
    return this.pos;
  }

  u8(): number {
    if (this.pos >= this.buf.length) throw new RangeError('corrupt page: truncated');
    return this.buf[this.pos++];
  }

  uvar(): number {
    const buf = this.buf;
    let b = this.u8();
    if (b < 0x80) return b;
    let v = b & 0x7f;
    let mul = 128;
    do {
      if (this.pos >= buf.length || mul >= 2 ** 56) throw new RangeError('corrupt page: varint');
      b = buf[this.pos++];
      v += (b & 0x7f) * mul;
      mul *= 128;
    } while (b >= 0x80);
    return v;
  }

  /**
   * `n` varints, each as `uvar` reads it, into `out[at]`, `out[at + stride]`, …: a column decoded straight into
   * its place in a larger block (the cold series reads millions, so the loop keeps the cursor in a local).
   */
  uvarsInto(out: Float64Array, n: number, at = 0, stride = 1): void {
    const buf = this.buf;
    const len = buf.length;
    let pos = this.pos;
    for (let i = 0, o = at; i < n; i++, o += stride) {
      if (pos >= len) throw new RangeError('corrupt page: truncated');
      let b = buf[pos++];
      if (b < 0x80) {
        out[o] = b;
        continue;
      }
      let v = b & 0x7f;
      let mul = 128;
      do {
        if (pos >= len || mul >= 2 ** 56) throw new RangeError('corrupt page: varint');
        b = buf[pos++];
        v += (b & 0x7f) * mul;
        mul *= 128;
      } while (b >= 0x80);
      out[o] = v;
    }
    this.pos = pos;
  }

  /** Moves past `n` bytes the caller has read in place. */
  skip(n: number): void {
    if (n > this.remaining()) throw new RangeError('corrupt page: truncated');
    this.pos += n;
  }

  /** `prev` plus a zigzag varint written by `Writer.delta`. */
  delta(prev = 0): number {
    const v = getDelta(this.buf, this.pos, prev);
    this.pos = varintEnd;
    return v;
  }

  str(): string {
    const n = this.uvar();
    if (n > this.remaining()) throw new RangeError('corrupt page: string length');
    const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return s;
  }

  end(): void {
    if (this.pos !== this.buf.length) throw new RangeError('corrupt page: trailing bytes');
  }
}
