import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import {
  applyReading,
  applyScanToCandles,
  type Candle,
  type CandlePage,
  type CandleRes,
  dayPoint,
  foldCandles,
  periodOf,
  periodStart,
  RESOLUTIONS,
  toWireCandle,
} from '../../shared/domain/candles';
import type { Scan, ScanItem } from '../../shared/domain/derived-scan';

const DAY = 19_876;
const T = DAY * DAY_MS + 10 * HOUR_MS;
const scan = (at: number, items: ScanItem[]): Scan => ({ at, complete: true, items });

describe('applyReading', () => {
  it('opens a new candle at the reading', () => {
    const page: CandlePage = new Map();
    applyReading(page, 1, 50, 3, T);
    expect(page.get(1)).toEqual({ open: 50, high: 50, low: 50, close: 50, quantity: 3, openAt: T, lastAt: T });
  });

  it('widens low and high and moves close and quantity to a newer reading', () => {
    const page: CandlePage = new Map();
    applyReading(page, 1, 50, 3, T);
    applyReading(page, 1, 80, 4, T + 10);
    applyReading(page, 1, 20, 5, T + 20);
    expect(page.get(1)).toEqual({ open: 50, high: 80, low: 20, close: 20, quantity: 5, openAt: T, lastAt: T + 20 });
  });

  it('lets a late reading set open but not close', () => {
    const page: CandlePage = new Map();
    applyReading(page, 1, 50, 3, T + 10);
    applyReading(page, 1, 40, 9, T);
    expect(page.get(1)).toEqual({ open: 40, high: 50, low: 40, close: 50, quantity: 3, openAt: T, lastAt: T + 10 });
  });

  it('keeps the first merged open and takes the last merged close on equal at', () => {
    const page: CandlePage = new Map();
    applyReading(page, 1, 50, 3, T);
    applyReading(page, 1, 60, 4, T);
    expect(page.get(1)).toMatchObject({ open: 50, close: 60, quantity: 4, high: 60, low: 50 });
  });

  it('lets a reading between openAt and lastAt change only the extremes', () => {
    const page: CandlePage = new Map();
    applyReading(page, 1, 50, 3, T);
    applyReading(page, 1, 60, 4, T + 20);
    applyReading(page, 1, 99, 7, T + 10);
    expect(page.get(1)).toEqual({ open: 50, high: 99, low: 50, close: 60, quantity: 4, openAt: T, lastAt: T + 20 });
  });
});

describe('candle periods and shapes', () => {
  it('numbers minutes, hours and UTC days as the spec does', () => {
    expect(periodOf('m1', T + 59_999)).toBe(Math.floor(T / MINUTE_MS));
    expect(periodOf('h1', T)).toBe(Math.floor(T / HOUR_MS));
    expect(periodOf('d1', T)).toBe(DAY);
    expect(periodStart('d1', DAY)).toBe(DAY * DAY_MS);
    expect(periodStart('h1', periodOf('h1', T + 5))).toBe(T);
  });

  it('derives the day point from the day candle and the wire candle from any candle', () => {
    const c: Candle = { open: 5, high: 9, low: 2, close: 7, quantity: 11, openAt: T, lastAt: T + 1 };
    expect(dayPoint(DAY, c)).toEqual([DAY, 2, 7, 11]);
    expect(toWireCandle(T, c)).toEqual([T, 5, 9, 2, 7, 11]);
  });

  it('updates only the items of the scan', () => {
    const page: CandlePage = new Map();
    applyScanToCandles(page, scan(T, [[1, 5, 1]]));
    applyScanToCandles(page, scan(T + 1, [[2, 6, 1]]));
    expect([...page.keys()].sort()).toEqual([1, 2]);
    expect(page.get(1)?.lastAt).toBe(T);
  });

  it('folds nothing into no candle', () => {
    expect(foldCandles([])).toBeUndefined();
  });
});

// ── property tests against a replay model written from the spec's words ───────────────

interface Reading {
  key: number;
  price: number;
  quantity: number;
  at: number;
  order: number;
}

/**
 * Spec Candles and Merge rule 3 as a replay: open from the earliest reading (equal at: the first merged),
 * close and quantity from the newest (equal at: the last merged), high and low over all.
 */
function modelCandle(readings: Reading[]): Candle {
  const first = [...readings].sort((a, b) => a.at - b.at || a.order - b.order)[0];
  const last = [...readings].sort((a, b) => b.at - a.at || b.order - a.order)[0];
  const prices = readings.map((r) => r.price);
  return {
    open: first.price,
    high: Math.max(...prices),
    low: Math.min(...prices),
    close: last.price,
    quantity: last.quantity,
    openAt: first.at,
    lastAt: last.at,
  };
}

// Times spread over two days with many shared minutes and hours, so ties and late scans are common.
const atArb = fc
  .tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }))
  .map(([d, h, m, s]) => (DAY + d) * DAY_MS + (22 + h) * HOUR_MS - 2 * HOUR_MS + m * MINUTE_MS + s * 20_000);
const scanArb = fc
  .record({
    at: atArb,
    items: fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 9 })), {
      selector: (i) => i[0],
      maxLength: 4,
    }),
  })
  .map((s) => scan(s.at, s.items.sort((a, b) => a[0] - b[0]) as ScanItem[]));
const scansArb = fc.array(scanArb, { minLength: 1, maxLength: 30 });

/** The pages the merge keeps: one per (resolution, period), each updated by the scans of that period. */
function mergeAll(scans: Scan[]): Map<string, CandlePage> {
  const pages = new Map<string, CandlePage>();
  for (const s of scans) {
    for (const res of RESOLUTIONS) {
      const id = `${res}:${periodOf(res, s.at)}`;
      const page = pages.get(id) ?? new Map();
      pages.set(id, page);
      applyScanToCandles(page, s);
    }
  }
  return pages;
}

const readingsOf = (scans: Scan[]): Reading[] =>
  scans.flatMap((s, order) => s.items.map(([key, price, quantity]) => ({ key, price, quantity, at: s.at, order })));

describe('candle properties', () => {
  it('matches the replay model for every item, resolution and period', () => {
    fc.assert(
      fc.property(scansArb, (scans) => {
        const pages = mergeAll(scans);
        const readings = readingsOf(scans);
        const groups = new Map<string, Reading[]>();
        for (const r of readings) {
          for (const res of RESOLUTIONS) {
            const id = `${res}:${periodOf(res, r.at)}|${r.key}`;
            groups.set(id, [...(groups.get(id) ?? []), r]);
          }
        }
        let count = 0;
        for (const [id, page] of pages) {
          for (const [key, candle] of page) {
            expect(candle).toEqual(modelCandle(groups.get(`${id}|${key}`) ?? []));
            count++;
          }
        }
        expect(count).toBe(groups.size);
      }),
    );
  });

  it('gives day points whose low is the day low and whose last and quantity come from the newest scan', () => {
    fc.assert(
      fc.property(scansArb, (scans) => {
        const pages = mergeAll(scans);
        const readings = readingsOf(scans);
        for (const [id, page] of pages) {
          if (!id.startsWith('d1:')) continue;
          const day = Number(id.slice(3));
          for (const [key, candle] of page) {
            const mine = readings.filter((r) => r.key === key && Math.floor(r.at / DAY_MS) === day);
            const newest = mine.reduce((a, b) => (b.at > a.at || (b.at === a.at && b.order > a.order) ? b : a));
            expect(dayPoint(day, candle)).toEqual([day, Math.min(...mine.map((r) => r.price)), newest.price, newest.quantity]);
          }
        }
      }),
    );
  });

  it('folds the candles of finer periods into the coarser candle', () => {
    const finer: Record<CandleRes, CandleRes | null> = { m1: null, h1: 'm1', d1: 'h1' };
    fc.assert(
      fc.property(scansArb, (scans) => {
        const pages = mergeAll(scans);
        for (const [id, page] of pages) {
          const [res, p] = id.split(':') as [CandleRes, string];
          const fine = finer[res];
          if (fine === null) continue;
          const start = periodStart(res, Number(p));
          const parts = [...pages]
            .filter(([fid]) => fid.startsWith(`${fine}:`))
            .map(([fid, fpage]) => ({ period: Number(fid.split(':')[1]), fpage }))
            .filter(({ period }) => periodStart(fine, period) >= start && periodStart(fine, period) < start + (res === 'd1' ? DAY_MS : HOUR_MS))
            .sort((a, b) => a.period - b.period);
          for (const [key, candle] of page) {
            const list = parts.map(({ fpage }) => fpage.get(key)).filter((c): c is Candle => c !== undefined);
            expect(foldCandles(list)).toEqual(candle);
          }
        }
      }),
    );
  });
});
