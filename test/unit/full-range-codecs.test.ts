import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../shared/clock';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import type { Row, RowTable } from '../../shared/domain/merge';
import type { Volume, VolumePage } from '../../shared/domain/volume-estimate';
import { decodeSeries, emptySeries, encodeSeries, foldDays, foldHours, type HourCloses } from '../../shared/files/hour-series';
import {
  decodeCandles,
  decodeHistory,
  decodeRows,
  decodeVolume,
  encodeCandleShards,
  encodeHistory,
  encodeRowShards,
  encodeVolumeShards,
} from '../../shared/page-format/page-codec';
import { Reader, Writer } from '../../shared/page-format/page-columns';
import { getDelta, getVarint, putDelta, putVarint, varintEnd } from '../../shared/page-format/varint';
import type { HistoryPage } from '../../shared/ports/market';
import { buyoutArb, edgy, keyArb, MAX_SAFE, quantityArb, sumArb, zigzagBytes } from '../support/full-range';

const T = 1_717_000_000_000;
const SHARDS = 16;
const sorted = <V>(m: ReadonlyMap<number, V>) => [...m].sort((a, b) => a[0] - b[0]);
const mapOf = <V>(arb: fc.Arbitrary<V>, maxLength = 40) => fc.uniqueArray(fc.tuple(keyArb, arb), { selector: (e) => e[0], maxLength }).map((l) => new Map(l));
const timeArb = edgy(0, MAX_SAFE);
const candleArb = (start: number, length: number) =>
  fc
    .tuple(buyoutArb, buyoutArb, buyoutArb, buyoutArb, quantityArb, fc.nat({ max: length - 1 }), fc.nat({ max: length - 1 }))
    .map(([a, b, c, d, quantity, x, y]): Candle => {
      const [low, p1, p2, high] = [a, b, c, d].sort((u, v) => u - v);
      return { open: p1, high, low, close: p2, quantity, openAt: start + Math.min(x, y), lastAt: start + Math.max(x, y) };
    });
const volumeArb = fc.tuple(sumArb, sumArb, sumArb).map((v): Volume => v);

describe('varints over the full range', () => {
  it('round-trips every unsigned value 0..2^53', () => {
    fc.assert(
      fc.property(fc.oneof(edgy(0, MAX_SAFE), fc.constant(2 ** 53)), (v) => {
        const buf = new Uint8Array(8);
        const end = putVarint(buf, 0, v);
        expect(getVarint(buf, 0)).toBe(v);
        expect(varintEnd).toBe(end);
      }),
    );
  });

  it('round-trips the difference of any two safe integers, as the zigzag varint of the exact difference', () => {
    const safe = fc.oneof(
      fc.maxSafeInteger(),
      edgy(0, MAX_SAFE),
      edgy(0, MAX_SAFE).map((v) => (v === 0 ? 0 : -v)),
    ); // never -0: no integer the codec stores
    fc.assert(
      fc.property(safe, safe, (value, prev) => {
        const buf = new Uint8Array(8);
        const end = putDelta(buf, 0, value, prev);
        expect([...buf.subarray(0, end)]).toEqual(zigzagBytes(BigInt(value) - BigInt(prev)));
        expect(getDelta(buf, 0, prev)).toBe(value);
        expect(varintEnd).toBe(end);
      }),
    );
    // Both ends of ±(2^54-2), whose zigzag has no exact double.
    for (const [value, prev] of [
      [MAX_SAFE, -MAX_SAFE],
      [-MAX_SAFE, MAX_SAFE],
      [0, MAX_SAFE],
      [MAX_SAFE, 0],
    ]) {
      const w = new Writer(8);
      w.delta(value, prev);
      expect(new Reader(w.bytes()).delta(prev)).toBe(value);
    }
  });
});

describe('packed pages over the full range', () => {
  it('round-trips rows with any price, quantity and time', () => {
    const rowArb = fc.record({ price: fc.option(buyoutArb), quantity: quantityArb, at: timeArb, reader: fc.string({ maxLength: 8 }), changedAt: timeArb });
    fc.assert(
      fc.property(mapOf(rowArb), (rows) => {
        const table: RowTable = new Map();
        for (const buf of encodeRowShards(rows as Map<number, Row>, SHARDS).values()) decodeRows(buf, table);
        expect(sorted(table)).toEqual(sorted(rows));
      }),
    );
  });

  it('round-trips candles with any prices and quantities', () => {
    const start = Math.floor(T / HOUR_MS) * HOUR_MS;
    fc.assert(
      fc.property(mapOf(candleArb(start, HOUR_MS)), (candles) => {
        const page: CandlePage = new Map();
        for (const buf of encodeCandleShards(candles, start, SHARDS).values()) decodeCandles(buf, page);
        expect(sorted(page)).toEqual(sorted(candles));
      }),
    );
  });

  it('round-trips volume estimates up to the saturation ceiling', () => {
    fc.assert(
      fc.property(mapOf(volumeArb), (volume) => {
        const page: VolumePage = new Map();
        for (const buf of encodeVolumeShards(volume, SHARDS).values()) decodeVolume(buf, page);
        expect(sorted(page)).toEqual(sorted(volume));
      }),
    );
  });

  it('round-trips compacted history days', () => {
    const day = Math.floor(T / DAY_MS);
    const dayArb = fc
      .integer({ min: day - 90, max: day })
      .chain((d) => fc.tuple(fc.constant(d), mapOf(candleArb(d * DAY_MS, DAY_MS), 12), mapOf(volumeArb, 12)));
    fc.assert(
      fc.property(fc.uniqueArray(dayArb, { selector: (d) => d[0], maxLength: 5 }), (days) => {
        const page: HistoryPage = new Map(days.map(([d, candles, volume]) => [d, { candles, volume }]));
        const out = decodeHistory(encodeHistory(page));
        expect([...out.keys()].sort()).toEqual([...page.keys()].sort());
        for (const [d, v] of page) {
          expect(sorted(out.get(d)?.candles ?? new Map())).toEqual(sorted(v.candles));
          expect(sorted(out.get(d)?.volume ?? new Map())).toEqual(sorted(v.volume));
        }
      }),
    );
  });
});

describe('the folded hour series over the full range', () => {
  const H = 480_000;
  const pointArb = fc.tuple(fc.integer({ min: H - 240, max: H - 1 }), fc.constantFrom(1, 2, 3), fc.option(buyoutArb, { nil: 0 }), quantityArb);

  it('round-trips hour closes, day closes and sold volume of any size', () => {
    const dayPoint = fc.tuple(fc.integer({ min: 1, max: 7 }), fc.constantFrom(1, 2, 3), buyoutArb, sumArb);
    fc.assert(
      fc.property(fc.array(pointArb, { maxLength: 80 }), fc.array(dayPoint, { maxLength: 20 }), fc.array(keyArb, { maxLength: 3 }), (points, days, keys) => {
        const pages = new Map<number, Map<number, [number, number]>>();
        const keyOf = (k: number) => keys[k - 1] ?? k;
        for (const [hour, k, close, q] of points) {
          if (!pages.has(hour)) pages.set(hour, new Map());
          pages.get(hour)?.set(keyOf(k), [close, q]);
        }
        const day = Math.floor(H / 24);
        const s = foldDays(
          foldHours(emptySeries(), [...pages] as Array<[number, HourCloses]>, H - 240, H - 336),
          days.map(([back, k, close, sold]) => [day - back, new Map([[keyOf(k), close]]), new Map([[keyOf(k), sold]])] as const),
          day - 7,
        );
        expect(decodeSeries(encodeSeries(s))).toEqual(s);
      }),
    );
  });

  it('stores a close near 2^53 next to a small one (the hourly files of such a market are written)', () => {
    const s = foldDays(
      foldHours(
        emptySeries(),
        [
          [H - 3, new Map([[7, [MAX_SAFE, 2 ** 31 - 1]]])],
          [H - 2, new Map([[7, [1, 1]]])],
          [H - 1, new Map([[7, [MAX_SAFE - 1, 0]]])],
        ],
        H - 240,
        H - 336,
      ),
      [[Math.floor(H / 24) - 1, new Map([[7, MAX_SAFE]]), new Map([[7, MAX_SAFE]])]],
      0,
    );
    expect(decodeSeries(encodeSeries(s))).toEqual(s);
  });
});
