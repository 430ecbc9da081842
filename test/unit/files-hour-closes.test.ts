/**
 * Issue 15 point 7: the recent series' hour pages read as columns (decodeCandleCloses + ColumnHourCloses)
 * fold to exactly the bytes the old path gave (decodeCandles into Candle objects, then a Map of
 * `[close, quantity]`), cold (empty series) and steady (a stored series plus new hours).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { ColumnHourCloses } from '../../shared/files/hour-closes';
import { emptySeries, encodeSeries, foldHours, type HourCloses } from '../../shared/files/hour-series';
import { foldHoursCold } from '../../shared/files/hour-series-cold';
import { decodeCandleCloses } from '../../shared/page-format/page-closes';
import { decodeCandles, encodeCandleShards } from '../../shared/page-format/page-codec';

const HOUR = 3_600_000;

/** An hour page of `keys` (a key is left out where `present` says so), stored as 16 shard pages. */
function shardPages(hour: number, keys: readonly number[], seed: number, present: (k: number) => boolean): Uint8Array[] {
  const page: CandlePage = new Map();
  for (const k of keys) {
    if (!present(k)) continue;
    const close = 1 + ((k * 7919 + seed * 104_729) % 9_000_000);
    const c: Candle = {
      open: close + 3,
      high: close + 10,
      low: Math.max(1, close - 5),
      close,
      quantity: 1 + ((k + seed) % 200),
      openAt: hour * HOUR + 60_000,
      lastAt: hour * HOUR + 600_000,
    };
    page.set(k, c);
  }
  return [...encodeCandleShards(page, hour * HOUR, 16).values()];
}

/** The path before: every shard decoded into Candle objects, then key → [close, quantity]. */
function oldCloses(bufs: Uint8Array[]): HourCloses {
  const page: CandlePage = new Map();
  for (const b of bufs) decodeCandles(b, page);
  const out = new Map<number, [number, number]>();
  for (const [key, c] of page) out.set(key, [c.close, c.quantity]);
  return out;
}

const newCloses = (bufs: Uint8Array[]): HourCloses => new ColumnHourCloses(bufs.map(decodeCandleCloses));

describe('hour pages read as columns', () => {
  it('answer the same closes and quantities as the Candle decoding, key by key', () => {
    const keys = [5, 16, 21, 37, 2 ** 31 + 5, 2 ** 33 + 82_800, 1_000_003, 77];
    const bufs = shardPages(500_000, keys, 3, (k) => k !== 77);
    const before = oldCloses(bufs);
    const after = newCloses(bufs);
    expect(after.size).toBe(before.size);
    expect(new Set(after.keys())).toEqual(new Set(before.keys()));
    for (const k of [...keys, 999, 2 ** 31 + 6]) expect(after.get(k), String(k)).toEqual(before.get(k));
    expect(new Map(after.entries())).toEqual(new Map(before.entries()));
  });

  it('fold to byte-identical series, cold and steady (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.oneof(
            fc.integer({ min: 1, max: 200_000 }),
            fc.integer({ min: 1, max: 3000 }).map((s) => 2 ** 31 * s + 82_800),
          ),
          { minLength: 1, maxLength: 60 },
        ),
        fc.integer({ min: 3, max: 40 }),
        fc.integer({ min: 0, max: 1000 }),
        (keys, hours, seed) => {
          const last = 480_000 + hours;
          const pages = (from: number, to: number, read: (b: Uint8Array[]) => HourCloses) =>
            Array.from({ length: to - from }, (_, i) => {
              const h = from + i;
              return [h, read(shardPages(h, keys, seed + h, (k) => (k + h + seed) % 5 !== 0))] as const;
            });
          const keepFrom = last - Math.floor(hours / 2);
          const retainFrom = 480_000 + 1;
          // Cold: every hour at once.
          const coldOld = encodeSeries(foldHours(emptySeries(), pages(480_000, last, oldCloses), keepFrom, retainFrom));
          const coldNew = encodeSeries(foldHours(emptySeries(), pages(480_000, last, newCloses), keepFrom, retainFrom));
          expect(Buffer.from(coldNew).equals(Buffer.from(coldOld))).toBe(true);
          // Steady: the series of all but the last two hours, then those two refolded with one more.
          const base = foldHours(emptySeries(), pages(480_000, last - 2, oldCloses), keepFrom - 1, retainFrom);
          const steadyOld = encodeSeries(foldHours(base, pages(last - 2, last + 1, oldCloses), keepFrom + 1, retainFrom));
          const steadyNew = encodeSeries(foldHours(base, pages(last - 2, last + 1, newCloses), keepFrom + 1, retainFrom));
          expect(Buffer.from(steadyNew).equals(Buffer.from(steadyOld))).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('the cold fold gives the bytes foldHours gives from an empty series (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.oneof(
            fc.integer({ min: 1, max: 200_000 }),
            fc.integer({ min: 1, max: 3000 }).map((s) => 2 ** 31 * s + 82_800),
          ),
          { minLength: 0, maxLength: 60 },
        ),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: -5, max: 45 }),
        fc.integer({ min: -5, max: 45 }),
        fc.integer({ min: 2, max: 9 }),
        (keys, hours, seed, keepAt, retainAt, gap) => {
          const first = 480_000;
          const read = (h: number) => shardPages(h, keys, seed + h, (k) => (k + h + seed) % gap !== 0);
          // Pages given out of order, as inParallel may hand them back.
          const list = Array.from({ length: hours }, (_, i) => first + i).sort((a, b) => ((a * 7919) % 13) - ((b * 7919) % 13) || b - a);
          const old = list.map((h) => [h, oldCloses(read(h))] as const);
          const cols = list.map((h) => [h, new ColumnHourCloses(read(h).map(decodeCandleCloses))] as const);
          const expected = encodeSeries(foldHours(emptySeries(), old, first + keepAt, first + retainAt));
          const got = foldHoursCold(cols, first + keepAt, first + retainAt);
          expect(Buffer.from(encodeSeries(got)).equals(Buffer.from(expected))).toBe(true);
          expect(got.hourThrough).toBe(hours > 0 ? first + hours - 1 : null);
        },
      ),
      { numRuns: 150 },
    );
  });
});
