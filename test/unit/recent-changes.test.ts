import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../shared/clock';
import { itemKey } from '../../shared/domain/item-key';
import type { AuctionRow, VolumeEstimate } from '../../shared/files/documents';
import {
  CATEGORIES,
  type Category,
  categoryOf,
  changesOf,
  type DayClosePoint,
  type HourPoint,
  type ItemClass,
  lowerMedian,
  type RecentChangesInput,
  recentChangesDoc,
  roundTo,
  type Series,
  sparkOf,
  weightOf,
} from '../../shared/files/recent-changes';

const M = 'forever.normal.horde.us';
/** H: a day-aligned hour, so the window H-168 … H-1 is the 7 full days D-7 … D-1. */
const H = 480000;
const D = 20000;
const AT = H * HOUR_MS;

const valueAt = (series: Series, hour: number): number | undefined => series.find(([h]) => h === hour)?.[1];

function input(parts: Partial<RecentChangesInput> & { classes?: Record<number, ItemClass> }): RecentChangesInput {
  const classes = parts.classes ?? {};
  return {
    market: M,
    hour: H,
    rows: parts.rows ?? [],
    hours: parts.hours ?? new Map(),
    dayCloses: parts.dayCloses ?? new Map(),
    volume: parts.volume,
    classOf: (id) => classes[id],
  };
}

describe('item changes and spark', () => {
  const points: HourPoint[] = (
    [
      [H - 1, 110, 1],
      [H - 2, 100, 1],
      [H - 25, 50, 1],
      [H - 26, 40, 1],
      [H - 168, 30, 1],
      [H - 169, 20, 1],
    ] as HourPoint[]
  ).sort((a, b) => a[0] - b[0]);

  it('compares with the newest candle that started more than 1 h, 24 h and 7 d before at', () => {
    // then: H-2 (100), H-25 (50), H-169 (20); H-1, H-24 and H-168 started exactly 1 h / 24 h / 7 d before.
    expect(changesOf(120, points, H)).toEqual([0.2, 1.4, 5]);
  });

  it('answers null when the price or the earlier close is missing', () => {
    expect(changesOf(null, points, H)).toEqual([null, null, null]);
    expect(changesOf(120, [[H - 1, 100, 1]], H)).toEqual([null, null, null]);
  });

  it('rounds changes to 4 decimals, half away from zero', () => {
    expect(changesOf(20001, [[H - 2, 20000, 1]], H)[0]).toBe(0.0001);
    expect(changesOf(19999, [[H - 2, 20000, 1]], H)[0]).toBe(-0.0001);
    expect(changesOf(2, [[H - 2, 3, 1]], H)[0]).toBe(-0.3333);
    expect(changesOf(5, [[H - 2, 3, 1]], H)[0]).toBe(0.6667);
    expect(roundTo(1.0005, 3)).toBe(1.001);
    expect(roundTo(-0.00004, 4)).toBe(0);
  });

  it('takes one close per 6-hour window, the newest up to the window end', () => {
    const spark = sparkOf(
      [
        [H - 168, 10, 1],
        [H - 160, 20, 1],
        [H - 3, 30, 1],
      ],
      H,
    );
    // Window 1 ends at H-162 (H-168 only), windows 2..27 end by H-6 (H-160 carried), window 28 ends at H.
    expect(spark).toEqual([10, ...Array(26).fill(20), 30]);
  });

  it('gives a candle starting at a window end to the next window and null before the first close', () => {
    expect(sparkOf([[H - 162, 7, 1]], H).slice(0, 3)).toEqual([null, 7, 7]);
    const late = sparkOf([[H - 100, 5, 1]], H);
    // Window i (1-based) ends at H-168+6i; H-100 starts before that end from i = 12 on.
    expect(late.slice(0, 11)).toEqual(Array(11).fill(null));
    expect(late.slice(11)).toEqual(Array(17).fill(5));
  });

  it('lists every key with a row, ascending, with the row price and quantity', () => {
    const rows: AuctionRow[] = [
      [9, 120, 4, AT - 1],
      [3, null, 0, AT - 1],
    ];
    const doc = recentChangesDoc(input({ rows, hours: new Map([[9, points]]) }));
    expect(doc.items).toEqual([
      [3, null, 0, null, null, null, Array(28).fill(null)],
      [9, 120, 4, 0.2, 1.4, 5, doc.items[1][6]],
    ]);
    expect(doc.items[1][6][27]).toBe(110);
    expect(doc).toMatchObject({ v: 1, market: M, at: AT });
  });
});

describe('index rules', () => {
  it('maps item classes to categories', () => {
    const c = (cls: number, sc: number) => categoryOf({ c: cls, sc });
    expect([c(7, 9), c(7, 7), c(7, 5), c(7, 6), c(7, 12), c(7, 10), c(0, 3), c(2, 7), c(4, 1)]).toEqual([
      'herbs',
      'ore',
      'cloth',
      'leather',
      'enchanting',
      'elemental',
      'consumables',
      'gear',
      'gear',
    ]);
    expect([c(7, 8), c(15, 0), categoryOf(undefined)]).toEqual([null, null, null]);
  });

  it('takes the lower median and weighs by sqrt(fair × sold per day) or the mean listed quantity', () => {
    expect(lowerMedian([4, 1, 3, 2])).toBe(2);
    expect(lowerMedian([5, 1, 3])).toBe(3);
    expect(lowerMedian([])).toBeUndefined();
    expect(weightOf(25, 4, [1000])).toBe(10);
    expect(weightOf(100, undefined, [2, 6])).toBe(20);
  });
});

describe('index series', () => {
  /** Candles every 24 h over the window at `base`, plus one at `jumpAt` from which the price is `after`. */
  function walk(base: number, after: number, jumpAt: number | null, quantities: number[] = []): HourPoint[] {
    const hours = [H - 168, H - 144, H - 120, H - 96, H - 72, H - 48, H - 24];
    if (jumpAt !== null) hours.push(jumpAt);
    hours.sort((a, b) => a - b);
    return hours.map((h, i) => [h, jumpAt !== null && h >= jumpAt ? after : base, quantities[i] ?? 1]);
  }

  const A = 1001; // herb 7/9
  const B = 2002; // ore 7/7
  const C = itemKey(3003, 5); // gear 2/7, a suffix key: classed by its item id
  const E = 4004; // herb 7/9 with only 4 candles in the window

  const rows: AuctionRow[] = [
    [A, 220, 7, AT - 1],
    [B, 30, 9, AT - 1],
    [C, 1000, 1, AT - 1],
    [E, 30, 1, AT - 1],
  ];
  const hours = new Map<number, HourPoint[]>([
    // A: 100 until H-100, then 200; quantities 2,6,4,4,4,4,4,4 (mean 4); a candle at H-200 serves ch7d only.
    [A, [[H - 200, 110, 9], ...walk(100, 200, H - 100, [2, 6, 4, 4, 4, 4, 4, 4])]],
    // B: 50 until H-50, then 25.
    [B, walk(50, 25, H - 50, Array(8).fill(1000))],
    // C: 100 until H-10, then 1000 (a log return of ln 10, clipped to ln 3).
    [C, walk(100, 1000, H - 10)],
    // E: 4 candles in the window (and one before it): left out of every basket though heavy and moving.
    [
      E,
      [
        [H - 200, 10, 1],
        [H - 40, 10, 1],
        [H - 30, 30, 1],
        [H - 20, 30, 1],
        [H - 5, 30, 1],
      ],
    ],
  ]);
  const dayCloses = new Map<number, DayClosePoint[]>([
    // A: newest 7 closes before D are D-7..D-1: 60,100,110,130,120,80,90 → sorted 60,80,90,[100],110,120,130 → fair 100.
    // D-8 (1) is not among the newest 7 (with it the lower median would be 90) and D itself (5000) is not
    // before at's day (with it, 110).
    [
      A,
      [
        [D - 8, 1],
        [D - 7, 60],
        [D - 6, 100],
        [D - 5, 110],
        [D - 4, 130],
        [D - 3, 120],
        [D - 2, 80],
        [D - 1, 90],
        [D, 5000],
      ],
    ],
    [B, [[D - 1, 25]]], // fair 25
    [
      C,
      [
        [D - 3, 100],
        [D - 2, 100],
        [D - 1, 100],
      ],
    ], // fair 100
    [E, [[D - 1, 1000]]],
  ]);
  const volume = new Map<number, VolumeEstimate[]>([
    // B: sold 3 and 5 on D-3, D-2 → 4 per day (D and D-8 fall outside D-7..D-1).
    [
      B,
      [
        [D - 8, 0, 1000, 0],
        [D - 3, 0, 3, 0],
        [D - 2, 0, 5, 0],
        [D, 0, 100, 0],
      ],
    ],
    [C, [[D - 1, 0, 1, 0]]], // 1 per day
    [E, [[D - 1, 0, 1000, 0]]],
  ]);
  const classes: Record<number, ItemClass> = { 1001: { c: 7, sc: 9 }, 2002: { c: 7, sc: 7 }, 3003: { c: 2, sc: 7 }, 4004: { c: 7, sc: 9 } };

  it('chain-links the weighted mean of clipped log returns (hand-checked)', () => {
    // Weights: A = sqrt(100 × 4) = 20 (no volume: mean listed quantity 4); B = sqrt(25 × 4) = 10; C = sqrt(100 × 1) = 10.
    // E has 4 candles in the window (< 5): not in the basket. Sum of weights = 40.
    // H-100: A returns ln 2, B and C 0 → mean = 20 ln2 / 40 = ln2 / 2 → 100 × 2^0.5 = 141.42136 → 141.421.
    // H-50:  B returns ln 0.5       → mean = -10 ln2 / 40 = -ln2 / 4 → 100 × 2^0.25 = 118.92071 → 118.921.
    // H-10:  C returns ln 10, clipped to ln 3 → mean = 10 ln3 / 40 = ln3 / 4 → 100 × 6^0.25 = 156.50846 → 156.508.
    // Every other hour each member's price is carried (gaps of at most 24 h), so its return is 0.
    const doc = recentChangesDoc(input({ rows, hours, dayCloses, volume, classes }));
    const { index } = doc;
    expect(index).toHaveLength(168);
    expect(index[0]).toEqual([H - 168, 100]);
    expect(index[167][0]).toBe(H - 1);
    expect(valueAt(index, H - 101)).toBe(100);
    expect(valueAt(index, H - 100)).toBe(141.421);
    expect(valueAt(index, H - 51)).toBe(141.421);
    expect(valueAt(index, H - 50)).toBe(118.921);
    expect(valueAt(index, H - 11)).toBe(118.921);
    expect(valueAt(index, H - 10)).toBe(156.508);
    expect(valueAt(index, H - 1)).toBe(156.508);
    expect(new Set(index.map(([, v]) => v))).toEqual(new Set([100, 141.421, 118.921, 156.508]));
  });

  it('runs each category on its own basket', () => {
    // herbs: A alone (E excluded) doubles at H-100 → 200. ore: B alone halves at H-50 → 50.
    // gear: C alone, its ×10 clipped to ×3 at H-10 → 300. The other categories stay at 100.
    const { categories } = recentChangesDoc(input({ rows, hours, dayCloses, volume, classes }));
    expect(Object.keys(categories).sort()).toEqual([...CATEGORIES].sort());
    const last = (c: Category) => categories[c][167][1];
    expect([last('herbs'), last('ore'), last('gear')]).toEqual([200, 50, 300]);
    expect(valueAt(categories.herbs, H - 101)).toBe(100);
    expect(valueAt(categories.ore, H - 51)).toBe(100);
    expect(valueAt(categories.gear, H - 11)).toBe(100);
    for (const c of ['cloth', 'leather', 'enchanting', 'elemental', 'consumables'] as const) {
      expect(categories[c]).toHaveLength(168);
      expect(categories[c].every(([, v]) => v === 100)).toBe(true);
    }
  });

  it('carries a price from up to 72 hours back, not from 73', () => {
    // One item, 5 candles in the window: 100 at H-168 … H-165, then 200 at hour J. The return at J needs a
    // price at J-1, carried from H-165 when H-165 >= J-1-72.
    const flat = [H - 168, H - 167, H - 166, H - 165].map((h) => [h, 100, 1] as HourPoint);
    const finalValue = (jump: number) =>
      recentChangesDoc(input({ rows: [[1, 200, 1, AT - 1]], hours: new Map([[1, [...flat, [jump, 200, 1] as HourPoint]]]) })).index[167][1];
    expect(finalValue(H - 93)).toBe(200); // J-1 = H-94 carries H-165 from 71 h back: ln 2 → ×2
    expect(finalValue(H - 92)).toBe(200); // J-1 = H-93 carries H-165 from exactly 72 h back
    expect(finalValue(H - 91)).toBe(100); // J-1 = H-92 is 73 h after H-165: no price, the jump links nothing
  });

  it('keeps the 50 heaviest items overall and the 20 heaviest per category', () => {
    // 51 herbs with weights sqrt(fair × 1) for fair = 100 … 5100 (no volume, quantity 1): item k has rank 52 - k.
    const many = new Map<number, HourPoint[]>();
    const closes = new Map<number, DayClosePoint[]>();
    const classes51: Record<number, ItemClass> = {};
    for (let k = 1; k <= 51; k++) {
      const rank = 52 - k;
      const jump = rank === 21 ? H - 50 : rank === 51 ? H - 30 : null;
      many.set(k, walk(100, 200, jump));
      closes.set(k, [[D - 1, 100 * k]]);
      classes51[k] = { c: 7, sc: 9 };
    }
    const doc = recentChangesDoc(input({ hours: many, dayCloses: closes, classes: classes51 }));
    // Rank 21 is in the overall basket (moves at H-50) but not the herbs basket; rank 51 is in neither.
    expect(valueAt(doc.index, H - 51)).toBe(100);
    expect(valueAt(doc.index, H - 50)).toBeGreaterThan(100);
    expect(valueAt(doc.index, H - 30)).toBe(valueAt(doc.index, H - 31));
    expect(doc.categories.herbs.every(([, v]) => v === 100)).toBe(true);
  });

  it('answers 168 values of 100 when no item qualifies', () => {
    const doc = recentChangesDoc(input({}));
    expect(doc.index).toHaveLength(168);
    expect(doc.index.every(([, v]) => v === 100)).toBe(true);
    expect(doc.items).toEqual([]);
  });
});
