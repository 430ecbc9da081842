/**
 * A period's answer elements packed as one byte string (issue 27 point 3: finished days kept in the form they
 * are answered in). A finished day's JSON elements, once written, are stored (the market port's answer store)
 * so a fresh function instance copies them into its answer instead of reading and decoding the day's pages
 * again. Layout: `u32 version, u32 count, f64 seq, f64 keys[count], i32 ends[count], data` (little-endian); anything
 * else (another version, a short or inconsistent buffer) unpacks to null and the day is built from its pages.
 */

/** One period's JSON element per item, keys ascending; element i ends at `ends[i]` in `data`. */
export interface PeriodBytes {
  keys: Float64Array;
  ends: Int32Array;
  data: Buffer;
  /** The market's seq read before the period's page was, or `FINAL` when no book could reach the period any more then. */
  seq: number;
}

const VERSION = 1;

/** The seq of an hour read once no book could reach it any more: it never changes again. */
export const FINAL = -1;
const HEAD = 16;
/** Typed arrays are in the platform's byte order: on little-endian ones (x86, ARM) keys and ends copy as blocks. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** The fragment's bytes. */
export function packPeriod(p: PeriodBytes): Uint8Array {
  const n = p.keys.length;
  const out = Buffer.allocUnsafe(HEAD + n * 12 + p.data.length);
  out.writeUInt32LE(VERSION, 0);
  out.writeUInt32LE(n, 4);
  out.writeDoubleLE(p.seq, 8);
  const endsAt = HEAD + n * 8;
  if (LITTLE_ENDIAN) {
    out.set(new Uint8Array(p.keys.buffer, p.keys.byteOffset, n * 8), HEAD);
    out.set(new Uint8Array(p.ends.buffer, p.ends.byteOffset, n * 4), endsAt);
  } else {
    for (let i = 0; i < n; i++) out.writeDoubleLE(p.keys[i], HEAD + i * 8);
    for (let i = 0; i < n; i++) out.writeInt32LE(p.ends[i], endsAt + i * 4);
  }
  p.data.copy(out, endsAt + n * 4);
  return out;
}

/** The elements a fragment holds, or null when it is not one this code wrote (checked, never trusted). */
export function unpackPeriod(bytes: Uint8Array): PeriodBytes | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEAD || buf.readUInt32LE(0) !== VERSION) return null;
  const n = buf.readUInt32LE(4);
  const endsAt = HEAD + n * 8;
  const dataAt = endsAt + n * 4;
  if (dataAt > buf.length) return null;
  const keys = new Float64Array(n);
  const ends = new Int32Array(n);
  if (LITTLE_ENDIAN) {
    // One copy each (the buffer need not be aligned for a typed-array view), then checked below.
    new Uint8Array(keys.buffer).set(buf.subarray(HEAD, endsAt));
    new Uint8Array(ends.buffer).set(buf.subarray(endsAt, dataAt));
  } else {
    for (let i = 0; i < n; i++) {
      keys[i] = buf.readDoubleLE(HEAD + i * 8);
      ends[i] = buf.readInt32LE(endsAt + i * 4);
    }
  }
  let prevKey = -Infinity;
  let prevEnd = 0;
  const size = buf.length - dataAt;
  for (let i = 0; i < n; i++) {
    const key = keys[i];
    const end = ends[i];
    if (!(key > prevKey) || end <= prevEnd || end > size) return null;
    prevKey = key;
    prevEnd = end;
  }
  if (n > 0 && prevEnd !== size) return null;
  if (n === 0 && size !== 0) return null;
  return { keys, ends, data: buf.subarray(dataAt), seq: buf.readDoubleLE(8) };
}
