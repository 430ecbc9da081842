/**
 * Issue 15 point 7, the cold snapshot's read path: (1) a deflated candle page's closes read from a part of
 * its inflated bytes are the closes the whole page gives (also when they do not fit in that part); (2) hour
 * pages folded key shard by key shard, each shard on its own, give the series `foldHours` gives from an
 * empty series, and `seriesFor` reads a cold series that way (or, for pages of another shard layout, page by
 * page) to the same series, a shard page written empty included; (3) one key shard's heads over several
 * hours decode to one key-major block when they list the same keys, else to each hour's columns, with the
 * same values; (4) the DynamoDB clients' base64 decoder decodes base64 as `atob` does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { RETAINED_HOURS } from '../../shared/domain/retention';
import { emptySeries, encodeSeries, foldHours, type HourCloses } from '../../shared/files/hour-series';
import { blockShard, foldShardRuns, joinShards } from '../../shared/files/hour-series-cold';
import { SERIES_HOURS, seriesFor } from '../../shared/files/snapshot-files';
import { type CandleCloses, decodeCandleCloses, decodeCandlePartsCloses, decodeShardCloses } from '../../shared/page-format/page-closes';
import { decodeCandles, encodeCandleParts, encodeCandleShards } from '../../shared/page-format/page-codec';
import type { MarketPages } from '../../shared/ports/market';
import type { Services } from '../../shared/services';
import { base64Decoder } from '../../shared/store/clients/base64';

const HOUR = 3_600_000;

/** A candle of close `close` whose other fields take `spread` (0: all equal to the close, a tiny tail). */
const candle = (close: number, quantity: number, spread: number, at: number): Candle => ({
  open: close + spread * 3,
  high: close + spread * 11,
  low: Math.max(1, close - spread * 2),
  close,
  quantity,
  openAt: at + (spread > 0 ? 60_000 : 0),
  lastAt: at + 600_000 + spread * 1000,
});

const closesOf = (buf: Uint8Array): Array<[number, number, number]> => [...decodeCandles(buf).page].map(([k, c]) => [k, c.close, c.quantity]);
const columnsOf = (c: CandleCloses): Array<[number, number, number]> => Array.from(c.keys, (k, i) => [k, c.close[i], c.quantity[i]]);

describe('a candle page read for its closes', () => {
  it('gives the closes and quantities of the whole page, large or small, however the columns compress (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 500 }),
        (n, seed, spreadMax, closeMax, quantityMax) => {
          const page: CandlePage = new Map();
          for (let i = 0; i < n; i++) {
            const key = 16 * (i * 3 + (seed % 7)) + 5 + (i % 4 === 0 ? 2 ** 31 * (1 + (i % 9)) : 0);
            const x = (seed + i * 2_654_435_761) % 1_000_003;
            page.set(key, candle(1 + (x % closeMax), x % (quantityMax + 1), x % (spreadMax + 1), 490_000 * HOUR));
          }
          for (const buf of encodeCandleShards(page, 490_000 * HOUR, 16).values()) {
            const got = decodeCandleCloses(buf);
            expect(columnsOf(got)).toEqual(closesOf(buf));
            expect(got.shards).toBe(16);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives the whole page's closes when pages alternate between closes-only candles and wide ones (the part tried follows the last page)", () => {
    for (const spreads of [
      [0, 0, 60, 60, 0, 60, 0],
      [60, 0, 0, 60, 1, 60],
    ]) {
      for (const [j, spread] of spreads.entries()) {
        const page: CandlePage = new Map(
          Array.from(
            { length: 1500 },
            (_, i) => [i * 16 + 7, candle(500 + ((i * 104_729 + j) % 4_000_000), 1 + (i % 50), spread === 0 ? 0 : 1 + ((i * 31) % spread), 0)] as const,
          ),
        );
        const [buf] = encodeCandleShards(page, 0, 16).values();
        expect(columnsOf(decodeCandleCloses(buf))).toEqual(closesOf(buf));
      }
    }
  });

  it('still refuses a page of another kind or a cut page', () => {
    const page: CandlePage = new Map(
      Array.from({ length: 2000 }, (_, i) => [i * 16 + 3, candle(1000 + ((i * 7919) % 90_000), 1 + (i % 30), i % 13, 0)] as const),
    );
    const [buf] = encodeCandleShards(page, 0, 16).values();
    expect(buf[1] & 1).toBe(1);
    expect(() => decodeCandleCloses(buf.subarray(0, 40))).toThrow();
    const other = Uint8Array.from(buf);
    other[0] = (1 << 4) | 1;
    expect(() => decodeCandleCloses(other)).toThrow(RangeError);
  });
});

/** An hour page of `keys` as its 16 stored shard pages (shard → head and rest), a key left out where `present` says so. */
function hourParts(hour: number, keys: readonly number[], seed: number, present: (k: number) => boolean): Map<number, Required<StoredShard>> {
  const page: CandlePage = new Map();
  for (const k of keys) if (present(k)) page.set(k, candle(1 + ((k * 7919 + seed * 104_729) % 9_000_000), 1 + ((k + seed) % 200), (k + seed) % 4, hour * HOUR));
  return encodeCandleParts(page, hour * HOUR, 16);
}

const asMap = (runs: readonly CandleCloses[]): HourCloses => {
  const out = new Map<number, [number, number]>();
  for (const r of runs) for (let i = 0; i < r.keys.length; i++) out.set(r.keys[i], [r.close[i], r.quantity[i]]);
  return out;
};

describe('hour pages folded key shard by key shard', () => {
  it('give the bytes foldHours gives from an empty series, read as columns per hour or as key-major blocks (property)', () => {
    let blocks = 0;
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.oneof(
            fc.integer({ min: 1, max: 200_000 }),
            fc.integer({ min: 1, max: 3000 }).map((s) => 2 ** 31 * s + 82_800),
          ),
          { minLength: 0, maxLength: 80 },
        ),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: -5, max: 45 }),
        fc.integer({ min: -5, max: 45 }),
        fc.integer({ min: 2, max: 9 }),
        // Keys missing from some pages, from none (every shard's pages hold the same keys), or only in shards 8-15.
        fc.constantFrom('gaps', 'none', 'half'),
        (keys, hours, seed, keepAt, retainAt, gap, missing) => {
          const first = 480_000;
          const list = Array.from({ length: hours }, (_, i) => first + i);
          const present = (k: number, h: number) => missing === 'none' || (missing === 'half' && k % 16 < 8) || (k + h + seed) % gap !== 0;
          const parts = list.map((h) => [h, hourParts(h, keys, seed + h, (k) => present(k, h))] as const);
          const pages = parts.map(([h, shards]) => [h, [...shards.values()].map((item) => decodeCandlePartsCloses(item))] as const);
          const expected = encodeSeries(
            foldHours(
              emptySeries(),
              pages.map(([h, runs]) => [h, asMap(runs)] as const),
              first + keepAt,
              first + retainAt,
            ),
          );
          // Each shard alone, as the cold read folds it when its pages arrive; shards joined in any order.
          const folded = Array.from({ length: 16 }, (_, s) => 15 - s).map((s) =>
            foldShardRuns(
              pages.flatMap(([h, runs]) => runs.filter((r) => r.residue === s).map((r) => [h, r] as const)),
              first + keepAt,
              first + retainAt,
            ),
          );
          const got = joinShards(folded, hours > 0 ? first + hours - 1 : null);
          expect(Buffer.from(encodeSeries(got)).equals(Buffer.from(expected))).toBe(true);
          // The same shards read as the store answers them: one key-major block where every hour lists the same keys.
          const read = Array.from({ length: 16 }, (_, s) => {
            const closes = decodeShardCloses(parts.flatMap(([h, shards]) => (shards.has(s) ? [[h, shards.get(s) as StoredShard] as const] : [])));
            if ('block' in closes) {
              blocks++;
              return blockShard(closes.block, first + keepAt, first + retainAt);
            }
            return foldShardRuns([...closes.runs], first + keepAt, first + retainAt);
          });
          const fromBlocks = joinShards(read, hours > 0 ? first + hours - 1 : null);
          expect(Buffer.from(encodeSeries(fromBlocks)).equals(Buffer.from(expected))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
    // Most generated markets have shards whose hours all list the same keys.
    expect(blocks).toBeGreaterThan(200);
  });
});

/** A stored hour page shard: whole (the layout before the split) or as its head and rest. */
type StoredShard = { c?: Uint8Array; d: Uint8Array };

/** A store holding only hour pages (hour → stored shard id → item), as much of MarketPages as a cold seriesFor reads. */
function hourStore(pages: ReadonlyMap<number, ReadonlyMap<number, StoredShard>>, reads: string[]): MarketPages {
  const none = async () => new Map();
  return {
    candleCloses: async (_m: string, res: string, period: number) => {
      reads.push(`page ${res}`);
      return res === 'h1' ? [...(pages.get(period)?.values() ?? [])].map((item) => decodeCandlePartsCloses(item)) : [];
    },
    candleClosesOfShard: async (_m: string, _res: string, periods: readonly number[], shard: number) => {
      reads.push('shard');
      const items: Array<readonly [number, StoredShard]> = [];
      for (const p of periods) {
        const item = pages.get(p)?.get(shard);
        if (item) items.push([p, item]);
      }
      return decodeShardCloses(items);
    },
    volumePage: none,
  } as unknown as MarketPages;
}

describe('a cold series read by seriesFor', () => {
  it('is the series foldHours gives, read shard by shard (whole pages, heads, one block per shard), or page by page when the pages are of another shard layout', async () => {
    const hour = 490_000;
    const first = hour - 40;
    const keys = [...Array.from({ length: 300 }, (_, i) => 3 + i * 5), 2 ** 31 * 4 + 82_800];
    const make = (shards: number, layout: 'whole' | 'split', gaps: boolean) => {
      const pages = new Map<number, Map<number, StoredShard>>();
      for (let h = first; h < hour; h++) {
        const page: CandlePage = new Map();
        for (const k of keys) if (!gaps || (k + h) % 6 !== 0) page.set(k, candle(100 + ((k * 31 + h * 17) % 90_000), 1 + ((k + h) % 9), (k + h) % 3, h * HOUR));
        pages.set(
          h,
          layout === 'whole'
            ? new Map([...encodeCandleShards(page, h * HOUR, shards)].map(([shard, d]) => [shard, { d }]))
            : encodeCandleParts(page, h * HOUR, shards),
        );
      }
      return pages;
    };
    const svc = { work: { get: async () => null }, log: () => undefined } as unknown as Services;
    const reference = (pages: ReadonlyMap<number, ReadonlyMap<number, StoredShard>>) => {
      const maps = [...pages].map(([h, items]) => [h, asMap([...items.values()].map((i) => decodeCandlePartsCloses(i)))] as const);
      return encodeSeries({ ...foldHours(emptySeries(), maps, hour - SERIES_HOURS, hour - RETAINED_HOURS), dayThrough: null });
    };
    const hoursOnly = (s: Awaited<ReturnType<typeof seriesFor>>['series']) => encodeSeries({ ...s, dayThrough: null, days: new Map(), sold: new Map() });
    // An hour whose shard 5 page was written empty (its keys gone): stored with residue 0, it is no other layout.
    const emptied = (pages: Map<number, Map<number, StoredShard>>) => {
      pages.get(first + 7)?.set(5, encodeCandleParts(new Map(), (first + 7) * HOUR, 16, [5]).get(5) as StoredShard);
      return pages;
    };
    for (const [shards, layout, gaps, expectReads, change] of [
      [16, 'whole', true, ['shard'], null],
      [16, 'split', true, ['shard'], null],
      [16, 'split', false, ['shard'], null],
      [16, 'whole', false, ['shard'], null],
      [16, 'split', false, ['shard'], emptied],
      [8, 'whole', true, ['shard', 'page h1'], null],
      [8, 'split', false, ['shard', 'page h1'], null],
    ] as const) {
      const pages = change ? change(make(shards, layout, gaps)) : make(shards, layout, gaps);
      const reads: string[] = [];
      const { series, moved } = await seriesFor(svc, hourStore(pages, reads), 'eu', hour, first * HOUR);
      expect(moved).toBe(true);
      expect(series.hourThrough).toBe(hour - 1);
      const label = `${shards} shards, ${layout}, ${gaps ? 'keys missing from some hours' : 'every key every hour'}${change ? ', an emptied shard page' : ''}`;
      expect(Buffer.from(hoursOnly(series)).equals(Buffer.from(reference(pages))), label).toBe(true);
      expect([...new Set(reads.filter((r) => r !== 'page d1'))], label).toEqual(expectReads);
    }
  });
});

describe('one key shard read over several hours', () => {
  const page = (h: number, keys: readonly number[]): CandlePage =>
    new Map(keys.map((k) => [k, candle(500 + ((k * 7919 + h * 31) % 100_000), 1 + ((k + h) % 7), (k + h) % 3, h * HOUR)] as const));
  const keys = Array.from({ length: 400 }, (_, i) => 16 * i + 5);
  const parts = (h: number, list = keys) => encodeCandleParts(page(h, list), h * HOUR, 16).get(5) as Required<StoredShard>;
  const points = (read: ReturnType<typeof decodeShardCloses>) => {
    const out: Array<[number, number, number, number]> = [];
    if ('block' in read) {
      const { keys: ks, periods, close, quantity } = read.block;
      for (let i = 0; i < ks.length; i++)
        for (let j = 0; j < periods.length; j++) out.push([periods[j], ks[i], close[i * periods.length + j], quantity[i * periods.length + j]]);
    } else for (const [p, run] of read.runs) for (let i = 0; i < run.keys.length; i++) out.push([p, run.keys[i], run.close[i], run.quantity[i]]);
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  };
  const expected = (hours: readonly number[], list = (_h: number) => keys) =>
    hours
      .flatMap((h) => list(h).map((k) => [h, k, page(h, list(h)).get(k)?.close, page(h, list(h)).get(k)?.quantity]))
      .sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));

  it('is one key-major block when every hour lists the same keys, in any order given, with the values of each hour', () => {
    const read = decodeShardCloses([12, 10, 11].map((h) => [h, parts(h)] as const));
    expect('block' in read && [...read.block.periods]).toEqual([10, 11, 12]);
    expect(points(read)).toEqual(expected([10, 11, 12]));
  });

  it("is each hour's columns when the keys differ or a page has no head, with the same values", () => {
    const fewer = (h: number) => (h === 11 ? keys.slice(1) : keys);
    const differ = decodeShardCloses([10, 11, 12].map((h) => [h, parts(h, fewer(h))] as const));
    expect('runs' in differ).toBe(true);
    expect(points(differ)).toEqual(expected([10, 11, 12], fewer));
    const whole = encodeCandleShards(page(11, keys), 11 * HOUR, 16).get(5) as Uint8Array;
    const headless = decodeShardCloses([
      [10, parts(10)],
      [11, { d: whole }],
      [12, parts(12)],
    ]);
    expect('runs' in headless).toBe(true);
    expect(points(headless)).toEqual(expected([10, 11, 12]));
  });

  it('refuses a cut head or a head of another kind', () => {
    const cut = { ...parts(11), c: parts(11).c.subarray(0, 60) };
    expect(() =>
      decodeShardCloses([
        [10, parts(10)],
        [11, cut],
      ]),
    ).toThrow();
    const other = Uint8Array.from(parts(11).c);
    other[0] = (1 << 4) | 2;
    expect(() =>
      decodeShardCloses([
        [10, parts(10)],
        [11, { ...parts(11), c: other }],
      ]),
    ).toThrow(RangeError);
  });
});

describe("the DynamoDB clients' base64 decoder", () => {
  it('decodes as atob does (property) and refuses a bad padding as the SDK does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        const reference = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
        expect(Buffer.from(base64Decoder(text)).equals(Buffer.from(reference))).toBe(true);
        expect(Buffer.from(base64Decoder(text)).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
    expect(() => base64Decoder('abcde')).toThrow(TypeError);
  });
});
