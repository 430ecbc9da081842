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
  /** Hours: the market's seq read before the page was, or `FINAL` when the hour was final then (days: 0). */
  seq: number;
}

const VERSION = 1;

/** The seq of an hour read once no book could reach it any more: it never changes again. */
export const FINAL = -1;
const HEAD = 16;

/** The fragment's bytes. */
export function packPeriod(p: PeriodBytes): Uint8Array {
  const n = p.keys.length;
  const out = Buffer.allocUnsafe(HEAD + n * 12 + p.data.length);
  out.writeUInt32LE(VERSION, 0);
  out.writeUInt32LE(n, 4);
  out.writeDoubleLE(p.seq, 8);
  for (let i = 0; i < n; i++) out.writeDoubleLE(p.keys[i], HEAD + i * 8);
  const endsAt = HEAD + n * 8;
  for (let i = 0; i < n; i++) out.writeInt32LE(p.ends[i], endsAt + i * 4);
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
  let prevKey = -Infinity;
  let prevEnd = 0;
  const size = buf.length - dataAt;
  for (let i = 0; i < n; i++) {
    const key = buf.readDoubleLE(HEAD + i * 8);
    const end = buf.readInt32LE(endsAt + i * 4);
    if (!(key > prevKey) || end <= prevEnd || end > size) return null;
    keys[i] = prevKey = key;
    ends[i] = prevEnd = end;
  }
  if (n > 0 && prevEnd !== size) return null;
  if (n === 0 && size !== 0) return null;
  return { keys, ends, data: buf.subarray(dataAt), seq: buf.readDoubleLE(8) };
}
