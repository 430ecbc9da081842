/**
 * Arbitraries over the full ranges the spec allows (prices 0..2^53-1, stack and n 1..2^31-1, keys up to
 * 2^53-1), biased toward the edges where doubles stop being exact, and BigInt reference helpers.
 */
import fc from 'fast-check';
import { itemKey, petKey } from '../../shared/domain/item-key';

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
export const MAX31 = 2 ** 31 - 1;

/** Integers lo..hi (any safe range), with both ends and their neighbours often. */
export const edgy = (lo: number, hi: number): fc.Arbitrary<number> => {
  const marks = [2 ** 31 - 1, 2 ** 31, 2 ** 52 - 1, 2 ** 52, 2 ** 52 + 1, 2 ** 53 - 2].filter((v) => v >= lo && v <= hi);
  return fc.oneof(
    { weight: 3, arbitrary: fc.maxSafeNat().map((n) => lo + (n % (hi - lo + 1))) },
    { weight: 2, arbitrary: fc.nat({ max: 1000 }).map((d) => Math.max(lo, hi - d)) },
    { weight: 1, arbitrary: fc.nat({ max: 1000 }).map((d) => Math.min(hi, lo + d)) },
    { weight: 1, arbitrary: marks.length > 0 ? fc.constantFrom(...marks) : fc.constant(hi) },
  );
};

/** Spec BookEntry price: 0..2^53-1. */
export const priceArb = edgy(0, MAX_SAFE);
/** A price with a buyout: 1..2^53-1. */
export const buyoutArb = edgy(1, MAX_SAFE);
/** Spec stack and n: 1..2^31-1. */
export const int31Arb = edgy(1, MAX31);
/** A quantity 0..2^31-1. */
export const quantityArb = edgy(0, MAX31);
/** Derived sums stored after saturation: 0..2^53-1. */
export const sumArb = edgy(0, MAX_SAFE);

/** Valid item keys up to 2^53-1: plain, suffixed and pet keys, the largest often. */
export const keyArb: fc.Arbitrary<number> = fc.oneof(
  edgy(1, MAX31),
  fc.tuple(edgy(1, MAX31), fc.integer({ min: -32768, max: 32767 })).map(([i, s]) => itemKey(i, s)),
  fc.tuple(edgy(1, MAX31), edgy(1, 4_194_303 - 65_536)).map(([i, s]) => petKey(i, s)),
);

/** Spec `chNh` from the spec's words, exactly: (price - then) / then rounded half away from zero to 4 decimals. */
export function referenceChange(price: number | null, then: number | undefined): number | null {
  if (price === null || then === undefined || then <= 0) return null;
  const num = (BigInt(price) - BigInt(then)) * 10_000n;
  const t = BigInt(then);
  const abs = num < 0n ? -num : num;
  const units = abs / t + ((abs % t) * 2n >= t ? 1n : 0n);
  if (units === 0n) return 0;
  const digits = units.toString().padStart(5, '0');
  return Number(`${num < 0n ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`);
}

/** The zigzag LEB128 bytes of an exact integer (the stored format of a signed delta). */
export function zigzagBytes(d: bigint): number[] {
  let z = d >= 0n ? d * 2n : -d * 2n - 1n;
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return out;
}

export const saturate = (v: bigint): number => (v > BigInt(MAX_SAFE) ? MAX_SAFE : Number(v));
