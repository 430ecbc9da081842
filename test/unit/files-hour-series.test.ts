import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuctionRow } from '../../shared/files/documents';
import { decodeSeries, emptySeries, encodeSeries, foldDays, foldHours, type HourSeries, keyIndex } from '../../shared/files/hour-series';
import { buildRecentFile } from '../../shared/files/recent-build';
import { type HourPoint, recentChangesDoc } from '../../shared/files/recent-changes';
import { SERIES_HOURS } from '../../shared/files/snapshot-files';

const H = 500_000;

type Pages = Map<number, Map<number, [number, number]>>;

/** Hour pages H-400 … H+30 of a few keys, sparse. */
const pagesArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: H - 400, max: H + 30 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 5_000_000 }),
      fc.integer({ min: 0, max: 500 }),
    ),
    { maxLength: 300 },
  )
  .map((list) => {
    const pages: Pages = new Map();
    for (const [hour, key, close, q] of list) {
      if (!pages.has(hour)) pages.set(hour, new Map());
      pages.get(hour)?.set(key, [close, q]);
    }
    return pages;
  });

/** Day closes and sold volume of a few keys, days 1 … 12 before the file's day. */
const dayArb = fc.array(
  fc.tuple(
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 6 }),
    fc.integer({ min: 1, max: 5_000_000 }),
    fc.option(fc.integer({ min: 0, max: 90 }), { nil: null }),
  ),
  { maxLength: 40 },
);

/** The reference input: every retained hour candle before `hour`. */
function allPoints(pages: Pages, hour: number): Map<number, HourPoint[]> {
  const out = new Map<number, HourPoint[]>();
  for (const [h, page] of [...pages].sort((a, b) => a[0] - b[0])) {
    if (h >= hour || h < hour - 336) continue;
    for (const [key, [c, q]] of page) out.set(key, [...(out.get(key) ?? []), [h, c, q]]);
  }
  return out;
}

/** The series as the job keeps it: folded hour by hour up to `hour - 1`, through its binary form. */
function folded(pages: Pages, hours: number[]): HourSeries {
  let s = emptySeries();
  let done = H - 400;
  for (const hour of hours) {
    const todo: Array<[number, Map<number, [number, number]>]> = [];
    for (let h = Math.max(done, hour - 336); h < hour; h++) todo.push([h, pages.get(h) ?? new Map()]);
    s = decodeSeries(encodeSeries(foldHours(s, todo, hour - SERIES_HOURS, hour - 336)));
    done = hour;
  }
  return s;
}

/**
 * Dense hour pages H-400 … H+30: most keys in most hours (every key-hour boundary of the window is met), key 5
 * only before H-150 and key 6 only in a few old hours, so carries older than the window are needed too.
 */
const densePagesArb = fc
  .record({ seed: fc.integer({ min: 0, max: 1000 }), gap: fc.integer({ min: 2, max: 40 }), cut: fc.integer({ min: 120, max: 260 }) })
  .map(({ seed, gap, cut }) => {
    const pages: Pages = new Map();
    for (let h = H - 400; h <= H + 30; h++) {
      const page = new Map<number, [number, number]>();
      for (let key = 1; key <= 4; key++)
        if ((h * 7 + key * 13 + seed) % gap !== 0) page.set(key, [1000 + ((h * 31 + key * 97 + seed) % 5000), 1 + ((h + key) % 9)]);
      if (h < H - cut) page.set(5, [2000 + (h % 700), 2]);
      if ((h + seed) % 97 === 0 && h < H - 100) page.set(6, [3000 + (h % 300), 1]);
      pages.set(h, page);
    }
    return pages;
  });

describe('recent series: hour closes folded between runs', () => {
  it('gives the recent-changes file exactly what all retained hour candles give it (sparse and dense hours)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(pagesArb, densePagesArb), fc.integer({ min: 1, max: 30 }), dayArb, async (pages, steps, dayList) => {
        const hours = Array.from({ length: steps }, (_, i) => H + i);
        const hour = hours[hours.length - 1];
        const day = Math.floor(hour / 24);
        const s = foldDays(
          folded(pages, hours),
          dayList.map(([back, key, close, sold]) => [day - back, new Map([[key, close]]), new Map(sold === null ? [] : [[key, sold]])] as const),
          day - 7,
        );
        const rows: AuctionRow[] = [1, 2, 3, 4, 5, 6].map((k) => [k, k === 6 ? null : 1000 * k, k, hour * 3_600_000 - 1]);
        const volume = new Map([...s.sold].map(([k, list]) => [k, list.map(([d, n]) => [d, 0, n, 0] as [number, number, number, number])]));
        const input = { market: 'm', hour, rows, classOf: (id: number) => ({ c: 7, sc: [9, 7, 5][id % 3] }) };
        expect(await buildRecentFile({ ...input, series: s })).toEqual(
          recentChangesDoc({ ...input, dayCloses: s.days, volume, hours: allPoints(pages, hour) }),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('replaces a refolded hour and keeps one older point per key inside retention', () => {
    const points = (s: HourSeries, key: number) => {
      const i = keyIndex(s, key);
      return i < 0
        ? null
        : Array.from({ length: s.start[i + 1] - s.start[i] }, (_, j) => [s.hour[s.start[i] + j], s.close[s.start[i] + j], s.quantity[s.start[i] + j]]);
    };
    let s = foldHours(
      emptySeries(),
      [
        [H - 300, new Map([[1, [5, 1]]])],
        [H - 250, new Map([[1, [6, 1]]])],
        [
          H - 10,
          new Map([
            [1, [7, 2]],
            [2, [9, 1]],
          ]),
        ],
      ],
      H - 240,
      H - 336,
    );
    expect(points(s, 1)).toEqual([
      [H - 250, 6, 1],
      [H - 10, 7, 2],
    ]);
    s = foldHours(s, [[H - 10, new Map([[1, [8, 3]]])]], H - 240, H - 336);
    expect(points(s, 1)).toEqual([
      [H - 250, 6, 1],
      [H - 10, 8, 3],
    ]);
    expect(points(s, 2)).toBeNull();
    s = foldHours(s, [], H + 100, H + 100 - 96);
    expect(points(s, 1)).toBeNull();
    expect(decodeSeries(encodeSeries(s))).toEqual(s);
  });

  it('keeps the newest 7 day closes and 7 days of sold volume per key', () => {
    const s = emptySeries();
    for (let d = 1; d <= 12; d++) foldDays(s, [[d, new Map([[1, 100 + d]]), new Map([[1, d]])]], d - 6);
    foldDays(s, [[12, new Map([[1, 500]]), new Map()]], 6);
    expect(s.days.get(1)?.at(-1)).toEqual([12, 500]);
    expect(s.sold.get(1)?.at(-1)).toEqual([11, 11]);
    expect(s.days.get(1)?.map((p) => p[0])).toEqual([6, 7, 8, 9, 10, 11, 12]);
    expect(s.sold.get(1)?.map((p) => p[0])).toEqual([6, 7, 8, 9, 10, 11]);
    const back = decodeSeries(encodeSeries(s));
    expect(back).toEqual(s);
  });

  it('round-trips points of any size through the binary form and refuses a cut one', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 2 ** 40 }),
            fc.integer({ min: 1, max: 400 }),
            fc.integer({ min: 0, max: 2 ** 53 - 1 }),
            fc.integer({ min: 0, max: 2 ** 31 }),
          ),
          { maxLength: 60 },
        ),
        (list) => {
          const pages = new Map<number, Map<number, [number, number]>>();
          for (const [key, hour, close, q] of list) {
            if (!pages.has(H - hour)) pages.set(H - hour, new Map());
            pages.get(H - hour)?.set(key, [close, q]);
          }
          const s = foldHours(emptySeries(), [...pages], H - 240, H - 400);
          const bytes = encodeSeries(s);
          expect(decodeSeries(bytes)).toEqual(s);
          if (s.hour.length > 0) expect(() => decodeSeries(bytes.subarray(0, bytes.length - 3))).toThrow(RangeError);
        },
      ),
    );
  });
});
