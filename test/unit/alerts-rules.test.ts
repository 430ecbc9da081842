import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AlertInput } from '../../shared/api/settings.schemas';
import { parseAs } from '../../shared/api/zod-parse';
import {
  type AlertKind,
  conditionHolds,
  type DayClose,
  fairPrice,
  type MarketAlert,
  type MarketAlertInput,
  newAlert,
  refClose,
  replaceAlert,
  VALUE_RANGE,
} from '../../shared/domain/alerts';
import { itemKey } from '../../shared/domain/item-key';
import { DomainError } from '../../shared/errors';

/** The route's parse of MarketAlertInput (shared/api/settings.schemas.ts). */
const parseAlertInput = (raw: unknown): MarketAlertInput => parseAs(AlertInput, raw, 'bad_request');

const MARKET = 'forever.normal.alliance.us';
const input = (over: Record<string, unknown> = {}) => ({ market: MARKET, item: 2589, kind: 'below', value: 100, ...over });
const codeOf = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (err) {
    return err instanceof DomainError ? err.code : 'thrown';
  }
};
const row = (price: number | null, quantity: number) => ({ price, quantity, at: 0 });

describe('parseAlertInput', () => {
  it('accepts a MarketAlertInput and defaults enabled to true', () => {
    expect(parseAlertInput(input({ name: 'Linen', note: 'n', extra: 1 }))).toEqual({
      market: MARKET,
      item: 2589,
      kind: 'below',
      value: 100,
      name: 'Linen',
      note: 'n',
      enabled: true,
    });
    expect(parseAlertInput(input({ enabled: false })).enabled).toBe(false);
  });

  it.each(Object.entries(VALUE_RANGE))('accepts %s values at both ends of their range and refuses one beyond', (kind, [lo, hi]) => {
    expect(parseAlertInput(input({ kind, value: lo })).value).toBe(lo);
    expect(parseAlertInput(input({ kind, value: hi })).value).toBe(hi);
    expect(codeOf(() => parseAlertInput(input({ kind, value: lo - 1 })))).toBe('bad_request');
    expect(codeOf(() => parseAlertInput(input({ kind, value: hi + 1 })))).toBe('bad_request');
  });

  it('holds the ranges of the spec and DESIGN', () => {
    expect(VALUE_RANGE).toEqual({
      below: [1, 2 ** 53 - 1],
      above: [1, 2 ** 53 - 1],
      rise: [1, 1000],
      fall: [1, 99],
      supplyBelow: [0, 2 ** 31 - 1],
      supplyAbove: [1, 2 ** 31 - 1],
      deal: [1, 99],
    });
  });

  it('lets only a deal use item 0', () => {
    expect(parseAlertInput(input({ kind: 'deal', item: 0, value: 20 })).item).toBe(0);
    expect(codeOf(() => parseAlertInput(input({ kind: 'below', item: 0 })))).toBe('bad_request');
  });

  it('refuses bad markets, kinds, keys, values and texts with bad_request', () => {
    const bad = [
      input({ market: 'forever.normal.alliance.eu' }),
      input({ kind: 'sideways' }),
      input({ item: 2147483648 * 65536 + 1 }),
      input({ item: -1 }),
      input({ item: '2589' }),
      input({ value: 1.5 }),
      input({ value: '100' }),
      input({ name: 'x'.repeat(81) }),
      input({ note: 'x'.repeat(201) }),
      input({ enabled: 'yes' }),
      [],
      null,
    ];
    for (const b of bad) expect(codeOf(() => parseAlertInput(b))).toBe('bad_request');
  });

  it('allows a name of 80 and a note of 200 characters (counted as characters, not bytes)', () => {
    expect(parseAlertInput(input({ name: 'é'.repeat(80), note: '✓'.repeat(200) })).name).toHaveLength(80);
  });

  it('takes suffix and pet keys', () => {
    expect(parseAlertInput(input({ item: itemKey(2589, 5) })).item).toBe(2589 + 2147483648 * 10);
  });
});

describe('conditionHolds at the boundaries of every kind', () => {
  const cases: Array<[AlertKind, number, { price: number | null; quantity: number } | null, number | null, number | null, boolean]> = [
    ['below', 100, row(100, 1), null, null, true],
    ['below', 100, row(101, 1), null, null, false],
    ['below', 100, row(null, 0), null, null, false],
    ['below', 100, null, null, null, false],
    ['above', 100, row(100, 1), null, null, true],
    ['above', 100, row(99, 1), null, null, false],
    ['above', 100, row(null, 0), null, null, false],
    ['rise', 10, row(110, 1), 100, null, true],
    ['rise', 10, row(109, 1), 100, null, false],
    ['rise', 10, row(110, 1), null, null, false],
    ['rise', 1000, row(1100, 1), 100, null, true],
    ['fall', 10, row(90, 1), 100, null, true],
    ['fall', 10, row(91, 1), 100, null, false],
    ['fall', 10, row(null, 0), 100, null, false],
    ['supplyBelow', 5, row(1, 5), null, null, true],
    ['supplyBelow', 5, row(1, 6), null, null, false],
    ['supplyBelow', 0, row(null, 0), null, null, true],
    ['supplyBelow', 5, null, null, null, false],
    ['supplyAbove', 5, row(1, 5), null, null, true],
    ['supplyAbove', 5, row(1, 4), null, null, false],
    ['supplyAbove', 1, null, null, null, false],
    ['deal', 20, row(800, 1), null, 1000, true],
    ['deal', 20, row(801, 1), null, 1000, false],
    ['deal', 20, row(800, 1), null, null, false],
  ];
  it.each(cases)('%s %d with row %j, ref %s, fair %s → %s', (kind, value, r, ref, fair, expected) => {
    expect(conditionHolds(kind, value, r === null ? null : { ...r, at: 0 }, ref, fair)).toBe(expected);
  });

  it('compares exactly near 2^53 (no floating-point rounding)', () => {
    const ref = Number.MAX_SAFE_INTEGER;
    // ref * 99 / 100 = 8917127262193581.09
    expect(conditionHolds('fall', 1, row(8917127262193581, 1), ref, null)).toBe(true);
    expect(conditionHolds('fall', 1, row(8917127262193582, 1), ref, null)).toBe(false);
    expect(conditionHolds('above', Number.MAX_SAFE_INTEGER, row(Number.MAX_SAFE_INTEGER, 1), null, null)).toBe(true);
  });
});

describe('ref and fair', () => {
  const day = 20000;

  it('ref is the close of the newest day candle before the evaluation day', () => {
    const closes: DayClose[] = [
      [day - 5, 50],
      [day - 2, 70],
      [day, 99],
      [day + 1, 98],
    ];
    expect(refClose(closes, day)).toBe(70);
    expect(refClose([[day, 1]], day)).toBeNull();
    expect(refClose([[day - 80, 4]], day)).toBe(4);
  });

  it('fair is the lower median of the newest 7 closes before the day', () => {
    const closes: DayClose[] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [day - n, n * 10]);
    // newest 7: days day-1..day-7 → closes 10..70; lower median = 40
    expect(fairPrice(closes, day)).toBe(40);
    expect(
      fairPrice(
        [
          [day - 1, 30],
          [day - 2, 10],
          [day - 3, 20],
          [day - 4, 40],
        ],
        day,
      ),
    ).toBe(20);
  });

  it('fair needs at least 3 candles, and only those of the 30 days before the day count', () => {
    expect(
      fairPrice(
        [
          [day - 1, 10],
          [day - 2, 20],
        ],
        day,
      ),
    ).toBeNull();
    const edge: DayClose[] = [
      [day - 1, 10],
      [day - 2, 20],
      [day - 30, 30],
    ];
    expect(fairPrice(edge, day)).toBe(20);
    expect(fairPrice([...edge.slice(0, 2), [day - 31, 30]], day)).toBeNull();
    expect(fairPrice([...edge, [day, 1]], day)).toBe(20);
  });

  it('fair matches a reference model (property)', () => {
    const model = (closes: DayClose[], d: number): number | null => {
      const byDay = [...closes].filter(([x]) => x < d && d - x <= 30);
      byDay.sort((a, b) => b[0] - a[0]);
      const seven = byDay.slice(0, 7).map(([, c]) => c);
      if (seven.length < 3) return null;
      seven.sort((a, b) => a - b);
      return seven[Math.ceil(seven.length / 2) - 1];
    };
    const closes = fc.uniqueArray(fc.tuple(fc.integer({ min: day - 60, max: day + 2 }), fc.integer({ min: 1, max: 1e9 })), {
      selector: ([d]) => d,
      maxLength: 40,
    });
    fc.assert(fc.property(closes, (c) => fairPrice(c as DayClose[], day) === model(c as DayClose[], day)));
  });
});

describe('creating and replacing', () => {
  const base: MarketAlertInput = { market: MARKET, item: 2589, kind: 'below', value: 100, enabled: true };

  it('a new alert is armed and has never fired', () => {
    expect(newAlert(base, 'a1', 5)).toEqual({ ...base, id: 'a1', created: 5, armed: true, last: null });
  });

  it('a replaced alert is armed again, keeps id, created and last, and takes the new input', () => {
    const old: MarketAlert = { ...base, name: 'old', id: 'a1', created: 5, armed: false, last: { at: 9, hits: [[2589, 90, 3]] } };
    const next = replaceAlert(old, { ...base, kind: 'above', value: 7, enabled: true });
    expect(next).toEqual({ ...base, kind: 'above', value: 7, id: 'a1', created: 5, armed: true, last: old.last });
    expect(next.name).toBeUndefined();
  });
});
