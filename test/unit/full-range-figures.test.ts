import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BookEntry } from '../../shared/domain/book';
import { applyScanToCandles, type Candle, type CandlePage } from '../../shared/domain/candles';
import { deriveScan } from '../../shared/domain/derived-scan';
import { SATURATED, satAdd, satMul } from '../../shared/domain/saturate';
import { addVolume, estimateVolume, type Volume, type VolumePage } from '../../shared/domain/volume-estimate';
import type { AuctionRow } from '../../shared/files/documents';
import { decodeSeries, emptySeries, encodeSeries, foldHours, type HourCloses } from '../../shared/files/hour-series';
import { buildRecentFile } from '../../shared/files/recent-build';
import { change } from '../../shared/files/recent-changes';
import { decodeCandles, encodeCandles } from '../../shared/page-format/page-codec';
import { buyoutArb, int31Arb, keyArb, MAX_SAFE, MAX31, priceArb, quantityArb, referenceChange, saturate, sumArb } from '../support/full-range';

/** A book's entries over the full ranges: unique and in book order (key, price, stack, band). */
const entriesArb = (keys: fc.Arbitrary<number>) =>
  fc
    .uniqueArray(fc.tuple(keys, priceArb, int31Arb, fc.integer({ min: 0, max: 4 }), int31Arb), {
      selector: (e) => `${e[0]}|${e[1]}|${e[2]}|${e[3]}`,
      maxLength: 24,
    })
    .map((l) => l.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]) as BookEntry[]);
/** Few keys and few (price, stack) groups, so books share groups (volume needs both sides). */
const sharedEntriesArb = fc
  .uniqueArray(
    fc.tuple(fc.constantFrom(1, 2 ** 53 - 1), fc.constantFrom(0, 1, MAX_SAFE), fc.constantFrom(1, MAX31), fc.integer({ min: 0, max: 4 }), int31Arb),
    { selector: (e) => `${e[0]}|${e[1]}|${e[2]}|${e[3]}`, maxLength: 20 },
  )
  .map((l) => l.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]) as BookEntry[]);

/** Spec Order books rule 4 per (key, price, stack), in BigInt, each figure saturated at 2^53-1. */
function referenceVolume(prev: readonly BookEntry[], next: readonly BookEntry[]): [number, Volume][] {
  const counts = (list: readonly BookEntry[], band?: number) => {
    const m = new Map<string, bigint>();
    for (const [k, p, s, b, n] of list) if (band === undefined || b === band) m.set(`${k}|${p}|${s}`, (m.get(`${k}|${p}|${s}`) ?? 0n) + BigInt(n));
    return m;
  };
  const [p, n, short] = [counts(prev), counts(next), counts(prev, 1)];
  const out = new Map<number, [bigint, bigint, bigint]>();
  for (const id of new Set([...p.keys(), ...n.keys()])) {
    const [key, , stack] = id.split('|').map(Number);
    const v = out.get(key) ?? [0n, 0n, 0n];
    const before = p.get(id) ?? 0n;
    const after = n.get(id) ?? 0n;
    const gone = before > after ? before - after : 0n;
    const shortN = short.get(id) ?? 0n;
    const expired = gone < shortN ? gone : shortN;
    v[0] += (after > before ? after - before : 0n) * BigInt(stack);
    v[1] += (gone - expired) * BigInt(stack);
    v[2] += expired * BigInt(stack);
    out.set(key, v);
  }
  return [...out].sort((a, b) => a[0] - b[0]).map(([k, v]) => [k, [saturate(v[0]), saturate(v[1]), saturate(v[2])]]);
}

describe('saturating sums', () => {
  it('add and multiply exactly below 2^53-1 and hold at it above', () => {
    fc.assert(
      fc.property(sumArb, sumArb, (a, b) => {
        expect(satAdd(a, b)).toBe(saturate(BigInt(a) + BigInt(b)));
        expect(satMul(a, b)).toBe(saturate(BigInt(a) * BigInt(b)));
      }),
    );
    expect(satMul(MAX31, MAX31)).toBe(SATURATED);
    expect(satAdd(SATURATED, 1)).toBe(SATURATED);
  });
});

describe('derived figures over the full ranges', () => {
  it('derives scan quantities as the sum of n × stack held at 2^31-1 (Order books rule 3)', () => {
    fc.assert(
      fc.property(entriesArb(fc.constantFrom(1, 5, 2 ** 53 - 1)), (entries) => {
        const scan = deriveScan({ at: 1, complete: true, entries });
        const keys = [...new Set(entries.map((e) => e[0]))].filter((k) => entries.some((e) => e[0] === k && e[1] > 0));
        expect(scan.items).toEqual(
          keys.map((k) => {
            const mine = entries.filter((e) => e[0] === k);
            const sum = mine.reduce((s, e) => s + BigInt(e[2]) * BigInt(e[4]), 0n);
            return [k, mine.find((e) => e[1] > 0)?.[1], Number(sum < BigInt(MAX31) ? sum : BigInt(MAX31))];
          }),
        );
      }),
    );
  });

  it('estimates volume as the spec model does, saturated at 2^53-1 (Order books rule 4)', () => {
    fc.assert(
      fc.property(sharedEntriesArb, sharedEntriesArb, (prev, next) => {
        expect(estimateVolume(prev, next)).toEqual(referenceVolume(prev, next));
      }),
    );
    fc.assert(
      fc.property(entriesArb(keyArb), entriesArb(keyArb), (prev, next) => {
        expect(estimateVolume(prev, next)).toEqual(referenceVolume(prev, next));
      }),
    );
  });

  it('gives the crafted replacing book (stack and n at 2^31-1) saturated estimates instead of overflowing', () => {
    const prev: BookEntry[] = [
      [5, 100, MAX31, 1, MAX31],
      [5, 200, MAX31, 3, MAX31],
    ];
    const next: BookEntry[] = [[5, 300, MAX31, 3, MAX31]];
    expect(estimateVolume(prev, next)).toEqual([[5, [SATURATED, SATURATED, SATURATED]]]);
    expect(estimateVolume([], prev)).toEqual([[5, [SATURATED, 0, 0]]]);
  });

  it('adds estimates to a day page with saturation', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(1, 2), sumArb, sumArb, sumArb), { maxLength: 12 }), (list) => {
        const page: VolumePage = new Map();
        const expected = new Map<number, bigint[]>();
        for (const [k, a, b, c] of list) {
          addVolume(page, [[k, [a, b, c]]]);
          const e = expected.get(k) ?? [0n, 0n, 0n];
          expected.set(k, [e[0] + BigInt(a), e[1] + BigInt(b), e[2] + BigInt(c)]);
        }
        // Saturation is sticky: summing saturated steps equals saturating the exact sum.
        for (const [k, e] of expected) expect(page.get(k)).toEqual(e.map(saturate));
      }),
    );
  });

  it('keeps candles exact at any price and quantity, through their stored pages', () => {
    const start = 1_717_000_000_000 - (1_717_000_000_000 % 3_600_000);
    const readingArb = fc.tuple(fc.nat({ max: 3_599_999 }), fc.constantFrom(1, 2 ** 53 - 1), buyoutArb, quantityArb);
    fc.assert(
      fc.property(fc.array(readingArb, { minLength: 1, maxLength: 12 }), (readings) => {
        const page: CandlePage = new Map();
        for (const [offset, key, price, quantity] of readings)
          applyScanToCandles(page, { at: start + offset, complete: false, items: [[key, price, quantity]] });
        for (const key of new Set(readings.map((r) => r[1]))) {
          const mine = readings.filter((r) => r[1] === key);
          const first = mine.reduce((a, r) => (r[0] < a[0] ? r : a));
          const last = mine.reduce((a, r) => (r[0] >= a[0] ? r : a));
          const prices = mine.map((r) => BigInt(r[2])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          const expected: Candle = {
            open: first[2],
            high: Number(prices[prices.length - 1]),
            low: Number(prices[0]),
            close: last[2],
            quantity: last[3],
            openAt: start + first[0],
            lastAt: start + last[0],
          };
          expect(page.get(key)).toEqual(expected);
        }
        expect([...decodeCandles(encodeCandles(page, start)).page]).toEqual([...page].sort((a, b) => a[0] - b[0]));
      }),
    );
  });
});

describe('recent-changes figures over the full price range', () => {
  it('rounds every change exactly as the spec says (half away from zero, 4 decimals)', () => {
    fc.assert(
      fc.property(priceArb, buyoutArb, (price, then) => {
        expect(change(price, then)).toBe(referenceChange(price, then));
      }),
    );
    // 0.5 - 0.5 / then units of 0.0001: a hair below a half, which the double quotient rounds up.
    expect(change(9_000_450_000_000_001, 9_000_000_000_000_001)).toBe(0);
    expect(change(MAX_SAFE, 1)).toBe(9_007_199_254_740_990);
    expect(change(0, MAX_SAFE)).toBe(-1);
  });

  it('answers changes and sparks from the stored hour series as the spec model does from the candles', async () => {
    const H = 480_000;
    const closeArb = fc.oneof(buyoutArb, fc.constantFrom(1, MAX_SAFE, MAX_SAFE - 1));
    const pointArb = fc.tuple(fc.integer({ min: H - 240, max: H - 1 }), closeArb, quantityArb);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(pointArb, { selector: (p) => p[0], maxLength: 40 }), fc.option(priceArb, { nil: null }), async (points, price) => {
        const key = 2 ** 53 - 1;
        const pages = points.map(([h, c, q]) => [h, new Map([[key, [c, q]]])] as [number, HourCloses]);
        const series = decodeSeries(encodeSeries(foldHours(emptySeries(), pages, H - 240, H - 336)));
        const rows: AuctionRow[] = [[key, price, 0, H * 3_600_000 - 1]];
        const file = await buildRecentFile({ market: 'm', hour: H, rows, series, classOf: () => undefined });
        const asc = [...points].sort((a, b) => a[0] - b[0]);
        const closeAtOrBefore = (hour: number) => asc.filter((p) => p[0] <= hour).at(-1)?.[1];
        const [, , , ch1h, ch24h, ch7d, spark] = file.items[0];
        expect([ch1h, ch24h, ch7d]).toEqual([
          referenceChange(price, closeAtOrBefore(H - 2)),
          referenceChange(price, closeAtOrBefore(H - 25)),
          referenceChange(price, closeAtOrBefore(H - 169)),
        ]);
        expect(spark).toEqual(Array.from({ length: 28 }, (_, i) => closeAtOrBefore(H - 168 + 6 * (i + 1) - 1) ?? null));
        for (const [, value] of file.index) expect(Number.isFinite(value)).toBe(true);
      }),
    );
  });
});
