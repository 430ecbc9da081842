import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../shared/clock';
import type { Candle } from '../../shared/domain/candles';
import { petKey } from '../../shared/domain/item-key';
import type { Volume } from '../../shared/domain/volume-estimate';
import { decodeHistoryParts, encodeHistoryParts, PART_BYTES, partsHolding } from '../../shared/page-format/history-parts';
import { encodeHistory } from '../../shared/page-format/page-codec';
import { HISTORY_SHARDS } from '../../shared/page-format/shard-layout';
import type { HistoryPage } from '../../shared/ports/market';
import { variantHistory, variantKeys } from '../support/many-variants';

/** DynamoDB's item size limit. */
const ITEM_LIMIT = 400 * 1024;
const DAY = 20_390;

// Keys of one history shard: variants of a few items that share it (item ids ≡ 112 mod 512), as the store holds them.
const keyArb = fc
  .tuple(fc.constantFrom(112, 624, 82_800 - (82_800 % 512) + 112), fc.integer({ min: 1, max: 3000 }))
  .map(([item, species]) => petKey(item, species));
const candleArb = (day: number) =>
  fc
    .tuple(
      fc.integer({ min: 1, max: 1e9 }),
      fc.nat(5000),
      fc.nat(5000),
      fc.nat(5000),
      fc.integer({ min: 1, max: 1000 }),
      fc.nat(DAY_MS - 1),
      fc.nat(DAY_MS - 1),
    )
    .map(
      ([close, dl, dh, dopen, quantity, a, b]): Candle => ({
        close: close + dl,
        low: close,
        high: close + dl + dh,
        open: close + Math.min(dopen, dl + dh),
        quantity,
        openAt: day * DAY_MS + Math.min(a, b),
        lastAt: day * DAY_MS + Math.max(a, b),
      }),
    );
const volumeArb = fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map((v): Volume => v);
const dayArb = (day: number) =>
  fc.uniqueArray(fc.tuple(keyArb, fc.option(candleArb(day)), fc.option(volumeArb)), { selector: (e) => e[0], minLength: 1, maxLength: 80 }).map((list) => {
    const candles = new Map<number, Candle>();
    const volume = new Map<number, Volume>();
    for (const [k, c, v] of list) {
      if (c === null && v === null) candles.set(k, { close: 1, low: 1, high: 1, open: 1, quantity: 1, openAt: day * DAY_MS, lastAt: day * DAY_MS });
      if (c) candles.set(k, c);
      if (v) volume.set(k, v);
    }
    return { candles, volume };
  });
const pageArb: fc.Arbitrary<HistoryPage> = fc
  .uniqueArray(fc.integer({ min: DAY - 95, max: DAY }), { maxLength: 12 })
  .chain((days) => fc.tuple(...days.map((d) => dayArb(d).map((v) => [d, v] as const))))
  .map((entries) => new Map(entries));

/** A page as sorted plain data, to compare pages whatever their insertion order. */
const plain = (page: HistoryPage) =>
  [...page].sort((a, b) => a[0] - b[0]).map(([d, v]) => [d, [...v.candles].sort((a, b) => a[0] - b[0]), [...v.volume].sort((a, b) => a[0] - b[0])]);
const only = (page: HistoryPage, key: number): HistoryPage => {
  const out: HistoryPage = new Map();
  for (const [d, v] of page) {
    const c = v.candles.get(key);
    const x = v.volume.get(key);
    if (c || x) out.set(d, { candles: new Map(c ? [[key, c]] : []), volume: new Map(x ? [[key, x]] : []) });
  }
  return out;
};

describe('history shard parts', () => {
  it('splits any page into parts each under the bound that decode to the page, a key found in the parts whose range holds it', () => {
    fc.assert(
      fc.property(pageArb, fc.integer({ min: 200, max: 4000 }), (page, bound) => {
        const parts = encodeHistoryParts(page, HISTORY_SHARDS, bound);
        for (const p of parts) expect(p.d.length).toBeLessThanOrEqual(bound);
        expect(plain(decodeHistoryParts(parts.map((p) => p.d)))).toEqual(plain(page));
        // Parts are in key order: a single-item read needs only the parts whose [lo, hi] holds its key.
        const ranges = parts.map((p) => [p.lo, p.hi] as const);
        for (let i = 1; i < ranges.length; i++) expect(ranges[i][0]).toBeGreaterThanOrEqual(ranges[i - 1][1]);
        for (const key of new Set([...page.values()].flatMap((v) => [...v.candles.keys(), ...v.volume.keys()]))) {
          const read = decodeHistoryParts(partsHolding(ranges, key).map((i) => parts[i].d));
          expect(plain(only(read, key))).toEqual(plain(only(page, key)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('keeps a page under the bound as one part, the bytes of a single-item shard', () => {
    const page = variantHistory(variantKeys(20), DAY, 90);
    const parts = encodeHistoryParts(page, HISTORY_SHARDS);
    expect(parts).toHaveLength(1);
    expect(parts[0].d).toEqual(encodeHistory(page, HISTORY_SHARDS));
    expect(encodeHistoryParts(new Map(), HISTORY_SHARDS)).toEqual([{ d: encodeHistory(new Map(), HISTORY_SHARDS), lo: 0, hi: -1 }]);
  });

  it('splits the shard of 800 variants of one item over 90 days, past the item limit whole, into parts under 350 KB', () => {
    const page = variantHistory(variantKeys(800), DAY, 90);
    expect(encodeHistory(page, HISTORY_SHARDS).length).toBeGreaterThan(ITEM_LIMIT);
    const parts = encodeHistoryParts(page, HISTORY_SHARDS);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.d.length).toBeLessThanOrEqual(PART_BYTES);
    expect(plain(decodeHistoryParts(parts.map((p) => p.d)))).toEqual(plain(page));
  });
});
