/**
 * LEB128 varints over byte buffers, unsigned and zigzag, exact over the whole range the service stores:
 * unsigned values up to 2^53 (a price shifted past null), and the difference of any two safe integers,
 * which spans ±(2^54-2) and so has no exact double. A difference under 2^52 (every realistic one) takes
 * the plain path; a larger one is written and read through BigInt, byte for byte what the zigzag varint
 * of the exact difference would be. The hour series calls these in its innermost loop; the page Writer
 * and Reader use them for signed values.
 */

const TWO52 = 2 ** 52;
const TWO53 = 2 ** 53;

/** Where the last read ended (a module cursor keeps hot loops free of allocations; importers see it live). */
export let varintEnd = 0;

/** Writes the unsigned LEB128 varint of an integer 0..2^53 at `pos`; answers the position after it. */
export function putVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80000000) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

/**
 * Reads an unsigned varint at `pos`; `varintEnd` is left after it. Exact up to 2^53; a longer value
 * (up to 8 bytes, 2^56) comes back rounded but never below 2^53, which is how `getDelta` tells it apart.
 */
export function getVarint(buf: Uint8Array, pos: number): number {
  if (pos >= buf.length) throw new RangeError('corrupt varint: truncated');
  let b = buf[pos++];
  if (b < 0x80) {
    varintEnd = pos;
    return b;
  }
  let v = b & 0x7f;
  let mul = 128;
  do {
    if (pos >= buf.length || mul >= 2 ** 56) throw new RangeError('corrupt varint: too long');
    b = buf[pos++];
    v += (b & 0x7f) * mul;
    mul *= 128;
  } while (b >= 0x80);
  varintEnd = pos;
  return v;
}

/** Writes `value - prev` (two safe integers) as a zigzag varint at `pos`, exactly; answers the position after it. */
export function putDelta(buf: Uint8Array, pos: number, value: number, prev: number): number {
  const d = value - prev;
  // Under 2^52 the difference is exact and so is its zigzag (under 2^53). The varint is written inline: this
  // is the innermost loop of the hour series (millions of points).
  if (!(d < TWO52 && d > -TWO52)) return putBigDelta(buf, pos, BigInt(value) - BigInt(prev));
  let z = d >= 0 ? d * 2 : -d * 2 - 1;
  while (z >= 0x80000000) {
    buf[pos++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  while (z >= 0x80) {
    buf[pos++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buf[pos++] = z;
  return pos;
}

function putBigDelta(buf: Uint8Array, pos: number, exact: bigint): number {
  let z = exact >= 0n ? exact * 2n : -exact * 2n - 1n;
  while (z >= 0x80n) {
    buf[pos++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[pos++] = Number(z);
  return pos;
}

/** Reads a zigzag varint at `pos` and answers `prev` plus it (exact when the result is a safe integer); `varintEnd` is left after it. */
export function getDelta(buf: Uint8Array, pos: number, prev: number): number {
  const start = pos;
  if (pos >= buf.length) throw new RangeError('corrupt varint: truncated');
  let b = buf[pos++];
  let z = b & 0x7f;
  if (b >= 0x80) {
    let mul = 128;
    do {
      if (pos >= buf.length || mul >= 2 ** 56) throw new RangeError('corrupt varint: too long');
      b = buf[pos++];
      z += (b & 0x7f) * mul;
      mul *= 128;
    } while (b >= 0x80);
  }
  varintEnd = pos;
  // Under 2^53 the varint was read exactly; a longer one may have lost its low bit and is read again exactly.
  if (z < TWO53) return prev + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
  let exact = 0n;
  let shift = 0n;
  for (let p = start; p < pos; p++, shift += 7n) exact |= BigInt(buf[p] & 0x7f) << shift;
  return Number(BigInt(prev) + (exact % 2n === 0n ? exact / 2n : -(exact + 1n) / 2n));
}

/** Bytes a varint of `putVarint` or `putDelta` takes at most. */
export const MAX_VARINT_BYTES = 8;
