import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../shared/clock';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { itemKey, petKey } from '../../shared/domain/item-key';
import type { Row, RowTable } from '../../shared/domain/merge';
import type { Volume, VolumePage } from '../../shared/domain/volume-estimate';
import {
  compactHistory,
  decodeCandles,
  decodeHistory,
  decodeRows,
  decodeVolume,
  encodeCandleShards,
  encodeCandles,
  encodeHistory,
  encodeRowShards,
  encodeRows,
  encodeVolume,
  encodeVolumeShards,
} from '../../shared/page-format/page-codec';
import { shardOf, shardsTouched, splitShards } from '../../shared/page-format/shard-layout';
import type { HistoryPage } from '../../shared/ports/market';

const T = 1_717_000_000_000;
const DAY = Math.floor(T / DAY_MS);
const MAX_KEY = petKey(2 ** 31 - 1, 4_194_303 - 65_536);

const keyArb = fc.oneof(
  fc.integer({ min: 1, max: 300_000 }),
  fc.tuple(fc.integer({ min: 1, max: 300_000 }), fc.integer({ min: -32768, max: 32767 })).map(([i, s]) => itemKey(i, s)),
  fc.tuple(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 4_194_303 - 65_536 })).map(([i, s]) => petKey(i, s)),
);
const priceArb = fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(1));
const rowArb = fc.record({
  price: fc.option(priceArb),
  quantity: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  at: fc.oneof(fc.constant(T), fc.integer({ min: T - 30 * DAY_MS, max: T + 300_000 })),
  reader: fc.oneof(fc.constantFrom('a1b2c3', 'ffee00', ''), fc.string({ maxLength: 20 })),
  changedAt: fc.oneof(fc.constant(T + 500), fc.integer({ min: T - 30 * DAY_MS, max: T + 400_000 })),
});
const candleArb = (start: number, length: number) =>
  fc
    .tuple(
      priceArb,
      priceArb,
      priceArb,
      priceArb,
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      fc.integer({ min: 0, max: length - 1 }),
      fc.integer({ min: 0, max: length - 1 }),
    )
    .map(([a, b, c, d, quantity, x, y]): Candle => {
      const [low, p1, p2, high] = [a, b, c, d].sort((u, v) => u - v);
      return { open: p1, high, low, close: p2, quantity, openAt: start + Math.min(x, y), lastAt: start + Math.max(x, y) };
    });
const volumeArb = fc.tuple(fc.nat(), fc.nat(), fc.nat()).map((v): Volume => v);
const mapOf = <T>(arb: fc.Arbitrary<T>) => fc.uniqueArray(fc.tuple(keyArb, arb), { selector: (e) => e[0], maxLength: 60 }).map((l) => new Map(l));
/** Keeps only the entries of one shard, so a page is what the store would hold. */
const inShard = <T>(map: Map<number, T>, shards: number, shard: number): Map<number, T> => new Map([...map].filter(([k]) => shardOf(k, shards) === shard));
const shardArb = fc.constantFrom(1, 2, 16, 512).chain((shards) => fc.tuple(fc.constant(shards), fc.nat({ max: shards - 1 })));

const sorted = <T>(m: Map<number, T>) => [...m].sort((a, b) => a[0] - b[0]);

describe('page codec round trips', () => {
  it('decodes a rows shard to the rows it encoded', () => {
    fc.assert(
      fc.property(mapOf(rowArb), shardArb, (rows, [shards, shard]) => {
        const page = inShard(rows as RowTable, shards, shard);
        expect(sorted(decodeRows(encodeRows(page, shards)))).toEqual(sorted(page));
      }),
    );
  });

  it('decodes a candle page to the candles it encoded', () => {
    const start = Math.floor(T / HOUR_MS) * HOUR_MS;
    fc.assert(
      fc.property(mapOf(candleArb(start, HOUR_MS)), shardArb, (candles, [shards, shard]) => {
        const page = inShard(candles, shards, shard);
        const out = decodeCandles(encodeCandles(page, start, shards));
        expect(out.start).toBe(start);
        expect(sorted(out.page)).toEqual(sorted(page));
      }),
    );
  });

  it('decodes a volume page to the estimates it encoded', () => {
    fc.assert(
      fc.property(mapOf(volumeArb), shardArb, (volume, [shards, shard]) => {
        const page = inShard(volume, shards, shard);
        expect(sorted(decodeVolume(encodeVolume(page, shards)))).toEqual(sorted(page));
      }),
    );
  });

  it('decodes a history page to the days it encoded', () => {
    const dayArb = fc.integer({ min: DAY - 90, max: DAY }).chain((day) => fc.tuple(fc.constant(day), mapOf(candleArb(day * DAY_MS, DAY_MS)), mapOf(volumeArb)));
    fc.assert(
      fc.property(fc.uniqueArray(dayArb, { selector: (d) => d[0], maxLength: 6 }), shardArb, (days, [shards, shard]) => {
        const page: HistoryPage = new Map(days.map(([d, c, v]) => [d, { candles: inShard(c, shards, shard), volume: inShard(v, shards, shard) }]));
        const out = decodeHistory(encodeHistory(page, shards));
        expect([...out.keys()].sort()).toEqual([...page.keys()].sort());
        for (const [d, day] of page) {
          expect(sorted(out.get(d)?.candles as CandlePage)).toEqual(sorted(day.candles));
          expect(sorted(out.get(d)?.volume as VolumePage)).toEqual(sorted(day.volume));
        }
      }),
    );
  });

  it('encodes a whole table shard by shard in one pass, and gathers it back with decode into', () => {
    fc.assert(
      fc.property(mapOf(rowArb), mapOf(candleArb(T, 60_000)), mapOf(volumeArb), fc.constantFrom(1, 4, 16), (rows, candles, volume, shards) => {
        const rowPages = encodeRowShards(rows as RowTable, shards);
        expect([...rowPages.keys()]).toEqual(shardsTouched(rows.keys(), shards));
        const table: RowTable = new Map();
        for (const [shard, buf] of rowPages) {
          expect(buf).toEqual(encodeRows(inShard(rows as RowTable, shards, shard), shards));
          decodeRows(buf, table);
        }
        expect(sorted(table)).toEqual(sorted(rows));
        const page: CandlePage = new Map();
        for (const buf of encodeCandleShards(candles, T, shards).values()) decodeCandles(buf, page);
        expect(sorted(page)).toEqual(sorted(candles));
        const vol: VolumePage = new Map();
        for (const buf of encodeVolumeShards(volume, shards).values()) decodeVolume(buf, vol);
        expect(sorted(vol)).toEqual(sorted(volume));
      }),
    );
  });

  it('encodes only the shards asked for, an empty page for one left without keys', () => {
    const rows: RowTable = new Map([[5, { price: 1, quantity: 1, at: T, reader: 'x', changedAt: T }]]);
    const pages = encodeRowShards(rows, 4, [1, 2]);
    expect([...pages.keys()]).toEqual([1, 2]);
    expect(decodeRows(pages.get(2) as Uint8Array).size).toBe(0);
    expect(decodeRows(pages.get(1) as Uint8Array).get(5)?.price).toBe(1);
  });

  it('keeps extreme values exact', () => {
    const rows: RowTable = new Map<number, Row>([
      [MAX_KEY, { price: Number.MAX_SAFE_INTEGER, quantity: 2 ** 31 - 1, at: T, reader: 'ü', changedAt: T }],
      [1, { price: null, quantity: 0, at: 0, reader: '', changedAt: 0 }],
    ]);
    expect(sorted(decodeRows(encodeRows(rows)))).toEqual(sorted(rows));
    expect(decodeRows(encodeRows(new Map())).size).toBe(0);
  });
});

describe('page codec layout', () => {
  it('packs a page of many keys sharing a scan time into a few bytes per key', () => {
    const rows: RowTable = new Map();
    for (let i = 0; i < 2000; i++) rows.set(1 + i * 7, { price: 1000 + ((i * 7919) % 5000), quantity: 1 + (i % 40), at: T, reader: 'r', changedAt: T + 9 });
    expect(encodeRows(rows).length / rows.size).toBeLessThan(6);
  });

  it('refuses a page holding keys of another shard', () => {
    expect(() =>
      encodeVolume(
        new Map([
          [1, [0, 0, 0]],
          [2, [0, 0, 0]],
        ]),
        16,
      ),
    ).toThrow(RangeError);
  });

  it('refuses a shard count that is not a power of two', () => {
    expect(() => encodeVolume(new Map(), 12)).toThrow(RangeError);
  });

  it('refuses a page of another kind and a truncated page', () => {
    const buf = encodeVolume(new Map<number, Volume>([[5, [1, 2, 3]]]));
    expect(() => decodeRows(buf)).toThrow(RangeError);
    const rows = encodeRows(new Map([[5, { price: 1, quantity: 1, at: T, reader: 'x', changedAt: T }]]));
    expect(() => decodeRows(rows.subarray(0, rows.length - 1))).toThrow(RangeError);
  });

  it('puts every variant of an item in one shard', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 32767 }), fc.constantFrom(1, 16, 512, 65536), (item, s, shards) => {
        expect(shardOf(itemKey(item, s), shards)).toBe(shardOf(item, shards));
        expect(shardOf(petKey(item, s), shards)).toBe(shardOf(item, shards));
      }),
    );
  });

  it('splits a map by shard and lists the shards a set of keys touches', () => {
    const parts = splitShards(
      new Map([
        [1, 'a'],
        [2, 'b'],
        [5, 'c'],
      ]),
      4,
    );
    expect(parts.map((m) => [...m.keys()])).toEqual([[], [1, 5], [2], []]);
    expect(shardsTouched([5, 1, 2, 9], 4)).toEqual([1, 2]);
  });
});

describe('compactHistory', () => {
  it('adds a finished day and drops days before the first kept day', () => {
    const v = (n: number): VolumePage => new Map([[1, [n, 0, 0]]]);
    const history: HistoryPage = new Map([
      [DAY - 91, { candles: new Map(), volume: v(1) }],
      [DAY - 1, { candles: new Map(), volume: v(2) }],
    ]);
    const out = compactHistory(history, DAY, new Map(), v(3), DAY - 90);
    expect([...out.keys()].sort()).toEqual([DAY - 1, DAY]);
    expect(history.size).toBe(2);
  });
});
