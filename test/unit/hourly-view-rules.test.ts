import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, HOUR_MS, hourOf } from '../../shared/clock';
import { applyScanToCandles, type Candle, type CandlePage, foldCandles, periodOf } from '../../shared/domain/candles';
import type { Scan } from '../../shared/domain/derived-scan';
import { type AuctionRow, mergeScan, type RowTable, toAuctionRow } from '../../shared/domain/merge';
import { FEATURES, ROLE_FEATURES, ROLE_LIMITS } from '../../shared/domain/roles';
import { acceptsGzip } from '../../shared/http/respond';
import { activity } from '../../shared/market/summary-read';
import { cutOf, foldPageInto, HOURLY_VIEW_MS, lastBetween, readingBefore, restrictionOf, rowAsOf } from '../../shared/market/view-rules';

const D = 20_000;
const T0 = D * DAY_MS;
const H = (h: number, m = 0) => T0 + h * HOUR_MS + m * 60_000;
const candle = (price: number, quantity: number, at: number): Candle => ({
  open: price,
  high: price,
  low: price,
  close: price,
  quantity,
  openAt: at,
  lastAt: at,
});

describe('cut', () => {
  it('is the top of the hour, and the hour start itself is its own cut', () => {
    expect(cutOf(H(10, 59) + 59_999)).toBe(H(10));
    expect(cutOf(H(11))).toBe(H(11));
  });
});

describe('rowAsOf', () => {
  const cut = H(11);
  it('shows a row read before the cut as it is', () => {
    expect(rowAsOf(7, { price: 50, quantity: 2, at: H(10, 30) }, undefined, [], cut)).toEqual([7, 50, 2, H(10, 30)]);
    expect(rowAsOf(7, { price: null, quantity: 0, at: H(10, 30) }, undefined, [], cut)).toEqual([7, null, 0, H(10, 30)]);
  });

  it('answers a row read at or after the cut with the newest reading before it, carrying its time', () => {
    const before = readingBefore(cut, candle(40, 3, H(10, 50)), [[D - 1, candle(30, 1, H(-2))]]);
    expect(rowAsOf(7, { price: 55, quantity: 1, at: cut }, before, [], cut)).toEqual([7, 40, 3, H(10, 50)]);
  });

  it('shows an item marked gone after the cut with its last listing before it', () => {
    const before = readingBefore(cut, candle(40, 3, H(10, 50)), []);
    expect(rowAsOf(7, { price: null, quantity: 0, at: H(11, 5) }, before, [H(11, 5)], cut)).toEqual([7, 40, 3, H(10, 50)]);
  });

  it('shows an item gone at the newest complete scan after its reading and before the cut', () => {
    const before = readingBefore(cut, undefined, [[D - 1, candle(30, 1, H(-3))]]);
    expect(rowAsOf(7, { price: 60, quantity: 1, at: H(11, 10) }, before, [H(-4), H(-1), H(5), H(11, 10)], cut)).toEqual([7, null, 0, H(5)]);
    expect(rowAsOf(7, { price: 60, quantity: 1, at: H(11, 10) }, before, [H(-4), H(11, 10)], cut)).toEqual([7, 30, 1, H(-3)]);
  });

  it('leaves out rows and readings more than 30 days before the cut, and items first read after it', () => {
    expect(rowAsOf(7, { price: 5, quantity: 1, at: cut - HOURLY_VIEW_MS - 1 }, undefined, [], cut)).toBeNull();
    expect(rowAsOf(7, { price: 5, quantity: 1, at: cut - HOURLY_VIEW_MS }, undefined, [], cut)).toEqual([7, 5, 1, cut - HOURLY_VIEW_MS]);
    expect(rowAsOf(7, { price: 5, quantity: 1, at: H(11, 1) }, undefined, [], cut)).toBeNull();
    expect(rowAsOf(7, undefined, undefined, [], cut)).toBeNull();
    const old = readingBefore(cut, undefined, [[D - 40, candle(9, 1, T0 - 40 * DAY_MS)]]);
    expect(rowAsOf(7, { price: 5, quantity: 1, at: H(11, 1) }, old, [], cut)).toBeNull();
    // An old listing marked gone within the 30 days shows as gone.
    expect(rowAsOf(7, { price: 5, quantity: 1, at: H(11, 1) }, old, [T0 - 20 * DAY_MS], cut)).toEqual([7, null, 0, T0 - 20 * DAY_MS]);
  });
});

describe('lastBetween', () => {
  it('finds the last value strictly inside the bounds, like a linear search', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 100 })), fc.integer({ min: -5, max: 105 }), fc.integer({ min: -5, max: 105 }), (values, a, b) => {
        const sorted = [...values].sort((x, y) => x - y);
        expect(lastBetween(sorted, a, b)).toBe(sorted.filter((v) => v > a && v < b).at(-1));
      }),
    );
  });
});

describe('foldPageInto', () => {
  it('grows a day so far hour by hour exactly like folding every hour at once', () => {
    const hourCandle = fc.record({
      low: fc.integer({ min: 1, max: 50 }),
      span: fc.integer({ min: 0, max: 50 }),
      q: fc.integer({ min: 0, max: 9 }),
      m: fc.integer({ min: 0, max: 58 }),
    });
    fc.assert(
      fc.property(fc.array(fc.option(hourCandle, { nil: undefined }), { minLength: 1, maxLength: 23 }), (hours) => {
        const running: CandlePage = new Map();
        const all: Candle[] = [];
        const seen: Candle[] = [];
        hours.forEach((h, i) => {
          if (!h) return;
          const c: Candle = { open: h.low + h.span, high: h.low + h.span, low: h.low, close: h.low, quantity: h.q, openAt: H(i, h.m), lastAt: H(i, h.m + 1) };
          const before = running.get(7);
          if (before) seen.push({ ...before });
          foldPageInto(running, new Map([[7, c]]));
          all.push(c);
          // A candle the page held before is replaced, never changed (cached folds share them).
          if (before) expect(before).toEqual(seen[seen.length - 1]);
        });
        expect(running.get(7)).toEqual(foldCandles(all));
      }),
    );
  });
});

/**
 * Reference model: the market as of the cut is what merging only the scans read before it gives (spec
 * Freshness, "nothing read at or after cut shows"), kept for 30 days. The view rebuilds it from the rows of
 * every scan, the hour and day candles and the complete scans' times.
 */
describe('the hourly view against a replay of the scans read before the cut', () => {
  const keys = [11, 12, 13];
  const scanArb = fc.record({
    minute: fc.integer({ min: 0, max: 5 * 24 * 60 }),
    complete: fc.boolean(),
    items: fc
      .subarray(keys)
      .chain((ks) => fc.tuple(...ks.map((k) => fc.tuple(fc.constant(k), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 9 }))))),
  });
  it('gives every row and the cut day as the replay does', () => {
    fc.assert(
      fc.property(fc.uniqueArray(scanArb, { minLength: 1, maxLength: 14, selector: (s) => s.minute }), fc.integer({ min: 1, max: 5 * 24 }), (raw, cutHour) => {
        const start = T0 - 2 * DAY_MS;
        const scans: Scan[] = raw
          .map((s) => ({ at: start + s.minute * 60_000 + 7_000, complete: s.complete, items: [...s.items].sort((a, b) => a[0] - b[0]) }))
          .sort((a, b) => a.at - b.at);
        const cut = start + cutHour * HOUR_MS;
        const rows: RowTable = new Map();
        const hours = new Map<number, CandlePage>();
        const days = new Map<number, CandlePage>();
        for (const s of scans) {
          mergeScan(rows, s, 'r', s.at);
          for (const [pages, res] of [
            [hours, 'h1'],
            [days, 'd1'],
          ] as const) {
            const p = periodOf(res, s.at);
            const page = pages.get(p) ?? new Map();
            applyScanToCandles(page, s);
            pages.set(p, page);
          }
        }
        const replay: RowTable = new Map();
        const cutDay: CandlePage = new Map();
        for (const s of scans.filter((x) => x.at < cut)) {
          mergeScan(replay, s, 'r', s.at);
          if (dayOf(s.at) === dayOf(cut)) applyScanToCandles(cutDay, s);
        }
        const expected = [...replay].map(([k, r]) => toAuctionRow(k, r)).filter((r) => cut - r[3] <= HOURLY_VIEW_MS);

        const soFar: CandlePage = new Map();
        for (let h = dayOf(cut) * 24; h < hourOf(cut); h++) foldPageInto(soFar, hours.get(h) ?? new Map());
        const gone = scans.filter((s) => s.complete && s.items.length > 0 && s.at < cut).map((s) => s.at);
        const actual: AuctionRow[] = [];
        for (const [key, row] of rows) {
          const earlier = [...days].filter(([d, page]) => d < dayOf(cut) && page.has(key)).map(([d, page]) => [d, page.get(key) as Candle] as const);
          const before = row.at >= cut ? readingBefore(cut, soFar.get(key), earlier) : undefined;
          const r = rowAsOf(key, row, before, gone, cut);
          if (r) actual.push(r);
        }
        expect(actual.sort((a, b) => a[0] - b[0])).toEqual(expected.sort((a, b) => a[0] - b[0]));
        expect(soFar).toEqual(cutDay);
      }),
      { numRuns: 300 },
    );
  });
});

describe('caller restriction', () => {
  it('puts anonymous and free callers together, and contributor and premium together', () => {
    const of = (r: keyof typeof ROLE_FEATURES) => restrictionOf(ROLE_FEATURES[r], ROLE_LIMITS[r].historyDays);
    expect(of('anon')).toBe(of('free'));
    expect(of('contributor')).toBe(of('premium'));
    expect(of('anon')).not.toBe(of('contributor'));
    // A withheld `depth` changes what an answer may hold: a separate restriction.
    expect(
      restrictionOf(
        FEATURES.filter((f) => f !== 'depth'),
        90,
      ),
    ).not.toBe(of('premium'));
  });
});

describe('market summary activity', () => {
  it('counts scans in the 24 h and distinct uploaders in the 7 days before the reference, never naming them', () => {
    const e = (at: number, uploader: string) => ({ market: 'm', at, items: 1, complete: true, credited: true, uploader, mergedAt: at });
    const ref = H(12);
    const entries = [e(ref - 8 * DAY_MS, 'a'), e(ref - 3 * DAY_MS, 'b'), e(ref - DAY_MS, 'c'), e(ref - 1, 'b'), e(ref, 'd')];
    expect(activity(entries, ref, false)).toEqual({ scans: 2, contributors7d: 2 });
    expect(activity(entries, ref, true)).toEqual({ scans: 3, contributors7d: 3 });
  });
});

describe('acceptsGzip', () => {
  it('reads Accept-Encoding with quality values', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0.1, gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
