/**
 * Issue 15 point 7: a stored candle page shard is two parts, the head `c` (start, keys, closes, quantities)
 * and the rest `d`, so the cold recent series reads only the heads. (1) Both layouts give the same candles
 * and the same closes: a shard in the parts layout, and one stored before it (the whole page under `d`
 * alone), decode to the page that was encoded (property). (2) The parts cost no more write units than the
 * whole page did: their total item size is no larger on market-like pages (DynamoDB bills 1 KB per unit).
 * (3) Mismatched or swapped parts are refused, never read as other candles. (4) Heads read one after another
 * share the keys of the one before only when they list the same keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../shared/clock';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { itemKey, petKey } from '../../shared/domain/item-key';
import { decodeCandleCloses, decodeCandlePartsCloses } from '../../shared/page-format/page-closes';
import { decodeCandleParts, decodeCandles, encodeCandleParts, encodeCandleShards } from '../../shared/page-format/page-codec';
import { shardOf } from '../../shared/page-format/shard-layout';

const START = 490_000 * HOUR_MS;

const keyArb = fc.oneof(
  fc.integer({ min: 1, max: 300_000 }),
  fc.tuple(fc.integer({ min: 1, max: 300_000 }), fc.integer({ min: -32768, max: 32767 })).map(([i, s]) => itemKey(i, s)),
  fc.tuple(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 4_194_303 - 65_536 })).map(([i, s]) => petKey(i, s)),
);
const priceArb = fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(1));
const candleArb = fc
  .tuple(priceArb, priceArb, priceArb, priceArb, fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.nat({ max: HOUR_MS - 1 }), fc.nat({ max: HOUR_MS - 1 }))
  .map(([a, b, c, d, quantity, x, y]): Candle => {
    const [low, p1, p2, high] = [a, b, c, d].sort((u, v) => u - v);
    return { open: p1, high, low, close: p2, quantity, openAt: START + Math.min(x, y), lastAt: START + Math.max(x, y) };
  });
const pageArb = fc.uniqueArray(fc.tuple(keyArb, candleArb), { selector: (e) => e[0], maxLength: 400 }).map((l): CandlePage => new Map(l));

const sorted = (m: CandlePage) => [...m].sort((a, b) => a[0] - b[0]);
const columns = (c: { keys: Float64Array; close: Float64Array; quantity: Float64Array }) => Array.from(c.keys, (k, i) => [k, c.close[i], c.quantity[i]]);

describe('candle page parts (head and rest)', () => {
  it('decode to the page encoded, as the whole layout does, and give the same closes; a whole-layout shard reads the same (property)', () => {
    fc.assert(
      fc.property(pageArb, fc.constantFrom(1, 2, 16), (page, shards) => {
        const parts = encodeCandleParts(page, START, shards);
        const wholes = encodeCandleShards(page, START, shards);
        expect([...parts.keys()]).toEqual([...wholes.keys()]);
        const fromParts: CandlePage = new Map();
        const fromOld: CandlePage = new Map();
        for (const [shard, item] of parts) {
          const old = { d: wholes.get(shard) as Uint8Array };
          const p = decodeCandleParts(item);
          expect(p.start).toBe(START);
          expect(sorted(p.page)).toEqual(sorted(decodeCandles(old.d).page));
          expect([...p.page.keys()].every((k) => shardOf(k, shards) === shard)).toBe(true);
          decodeCandleParts(item, fromParts);
          decodeCandleParts(old, fromOld);
          const closes = decodeCandlePartsCloses(item);
          expect(columns(closes)).toEqual(columns(decodeCandleCloses(old.d)));
          expect(columns(decodeCandlePartsCloses(old))).toEqual(columns(closes));
          expect([closes.shards, closes.residue]).toEqual([shards, shard]);
        }
        expect(sorted(fromParts)).toEqual(sorted(page));
        expect(sorted(fromOld)).toEqual(sorted(page));
      }),
      { numRuns: 150 },
    );
  });

  it('cost no more write units than the whole page: total item size per shard no larger on a market-like hour page', () => {
    // A 20000-key market's hour: prices spread over five decades, most candles with extremes, a few scan times.
    const page: CandlePage = new Map();
    let x = 12345;
    const rand = () => {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      return x / 2_147_483_648;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = i % 5 === 0 ? itemKey(10_000 + i * 7, 1 + (i % 40)) : 10_000 + i * 7;
      const close = Math.round(10 ** (2 + rand() * 5));
      const spread = rand() < 0.3 ? 0 : Math.round(close * 0.05 * rand());
      const at = START + Math.floor(rand() * 4) * 900_000;
      page.set(key, {
        open: close + spread,
        high: close + 2 * spread,
        low: Math.max(1, close - spread),
        close,
        quantity: 1 + Math.floor(rand() * 200),
        openAt: at,
        lastAt: at + (spread ? 600_000 : 0),
      });
    }
    const wholes = encodeCandleShards(page, START, 16);
    const units = (bytes: number) => Math.ceil(bytes / 1024);
    // Beside the pages every item has the same keys, ttl and names; the parts add the name `c` (1 byte).
    const OTHER = 60;
    let whole = 0;
    let split = 0;
    for (const [shard, { c, d }] of encodeCandleParts(page, START, 16)) {
      const old = (wholes.get(shard) as Uint8Array).length + OTHER;
      const now = c.length + d.length + 1 + OTHER;
      expect(units(now)).toBeLessThanOrEqual(units(old));
      whole += old;
      split += now;
    }
    expect(split).toBeLessThanOrEqual(whole);
  });

  it('refuses a head and rest of different pages, a rest read as a whole page, and a head without its rest', () => {
    const a: CandlePage = new Map([
      [16, { open: 5, high: 9, low: 4, close: 6, quantity: 2, openAt: START, lastAt: START + 1000 }],
      [32, { open: 7, high: 7, low: 7, close: 7, quantity: 1, openAt: START, lastAt: START }],
    ]);
    const b: CandlePage = new Map([[16, { open: 5, high: 9, low: 4, close: 6, quantity: 2, openAt: START, lastAt: START + 1000 }]]);
    const pa = encodeCandleParts(a, START, 16).get(0) as { c: Uint8Array; d: Uint8Array };
    const pb = encodeCandleParts(b, START, 16).get(0) as { c: Uint8Array; d: Uint8Array };
    expect(() => decodeCandleParts({ c: pa.c, d: pb.d })).toThrow(RangeError);
    expect(() => decodeCandles(pa.d)).toThrow(RangeError);
    expect(() => decodeCandles(pa.c)).toThrow(RangeError);
    expect(() => decodeCandleParts({ c: pa.c, d: pa.c })).toThrow(RangeError);
    expect(() => decodeCandlePartsCloses({})).toThrow(RangeError);
  });

  it('read one after another, share the keys array of the head before only when the keys are the same, with the same columns (property)', () => {
    const keysArb = fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 60 }).map((l) => l.map((k) => k * 16 + 3));
    fc.assert(
      fc.property(fc.array(fc.tuple(keysArb, fc.nat({ max: 2 ** 31 - 1 })), { minLength: 1, maxLength: 8 }), fc.boolean(), (pages, repeat) => {
        // Each page: its key list (or, when `repeat`, the first page's), closes from a seed.
        const lists = pages.map(([keys], i) => (repeat && i > 0 ? pages[0][0] : keys));
        let like: ReturnType<typeof decodeCandlePartsCloses> | undefined;
        let prevKeys: number[] | undefined;
        lists.forEach((keys, i) => {
          const price = (j: number) => 1 + ((pages[i][1] + j * 7) % 99_999);
          const page: CandlePage = new Map(
            keys.map((k, j) => [k, { open: price(j), high: price(j), low: price(j), close: price(j), quantity: j, openAt: START, lastAt: START }]),
          );
          const head = encodeCandleParts(page, START, 16, [3]).get(3) as { c: Uint8Array; d: Uint8Array };
          const got = decodeCandlePartsCloses(head, like);
          expect(columns(got)).toEqual(columns(decodeCandlePartsCloses(head)));
          const sortedKeys = [...keys].sort((a, b) => a - b);
          if (like && prevKeys && prevKeys.join() === sortedKeys.join()) expect(got.keys).toBe(like.keys);
          else if (like) expect(got.keys).not.toBe(like.keys);
          like = got;
          prevKeys = sortedKeys;
        });
      }),
      { numRuns: 150 },
    );
    // The same count of keys and the same first key, but not the same keys.
    const one = (k: number): CandlePage =>
      new Map([3, k].map((key) => [key, { open: 5, high: 5, low: 5, close: 5, quantity: 1, openAt: START, lastAt: START }]));
    const a = decodeCandlePartsCloses(encodeCandleParts(one(19), START, 16).get(3) as { c: Uint8Array; d: Uint8Array });
    const b = decodeCandlePartsCloses(encodeCandleParts(one(35), START, 16).get(3) as { c: Uint8Array; d: Uint8Array }, a);
    expect(Array.from(b.keys)).toEqual([3, 35]);
    expect(Array.from(a.keys)).toEqual([3, 19]);
    // A head with the same keys but cut short, or with bytes after its columns, is refused, not read as closes.
    const c = (encodeCandleParts(one(19), START, 16).get(3) as { c: Uint8Array }).c;
    expect(c[1]).toBe(0); // a small payload is stored raw: its bytes can be cut and padded here
    expect(() => decodeCandlePartsCloses({ c: c.subarray(0, c.length - 1) }, a)).toThrow(RangeError);
    expect(() => decodeCandlePartsCloses({ c: Uint8Array.from([...c, 0]) }, a)).toThrow(RangeError);
    expect(Array.from(decodeCandlePartsCloses({ c }, a).close)).toEqual([5, 5]);
  });
});
