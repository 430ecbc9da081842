import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BookEntry } from '../../shared/domain/book';
import { deriveScan } from '../../shared/domain/derived-scan';

const AT = 1_717_000_000_000;
const book = (entries: BookEntry[], complete = true) => ({ at: AT, complete, entries });

describe('deriveScan', () => {
  it('takes the lowest unit buyout and sums n * stack per item', () => {
    const scan = deriveScan(
      book([
        [10, 300, 5, 3, 2],
        [10, 450, 20, 4, 1],
        [11, 9, 1, 1, 1],
      ]),
    );
    expect(scan).toEqual({
      at: AT,
      complete: true,
      items: [
        [10, 300, 30],
        [11, 9, 1],
      ],
    });
  });

  it('counts bid-only entries toward quantity but never as the price', () => {
    const scan = deriveScan(
      book([
        [10, 0, 20, 1, 3],
        [10, 700, 1, 2, 1],
      ]),
    );
    expect(scan.items).toEqual([[10, 700, 61]]);
  });

  it('gives no scan item to an item whose entries are all bid-only', () => {
    expect(
      deriveScan(
        book([
          [10, 0, 1, 1, 1],
          [12, 5, 1, 1, 1],
        ]),
      ).items,
    ).toEqual([[12, 5, 1]]);
  });

  it('caps quantity at 2^31-1', () => {
    expect(deriveScan(book([[10, 1, 2 ** 31 - 1, 1, 2 ** 31 - 1]])).items[0][2]).toBe(2 ** 31 - 1);
  });

  it('carries the book time and complete flag, and an empty book gives an empty scan', () => {
    expect(deriveScan(book([], false))).toEqual({ at: AT, complete: false, items: [] });
  });
});

const entries = fc
  .uniqueArray(
    fc.tuple(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 0, max: 9 }),
      fc.constantFrom(1, 5, 20),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 9 }),
    ),
    { selector: (e) => `${e[0]}|${e[1]}|${e[2]}|${e[3]}`, maxLength: 40 },
  )
  .map((l) => l.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]) as BookEntry[]);

describe('deriveScan against the spec model', () => {
  it('matches a per-item model of Order books rule 3', () => {
    fc.assert(
      fc.property(entries, (list) => {
        const keys = [...new Set(list.map((e) => e[0]))].sort((a, b) => a - b);
        const expected = keys.flatMap((key) => {
          const mine = list.filter((e) => e[0] === key);
          const buyouts = mine.filter((e) => e[1] > 0).map((e) => e[1]);
          if (buyouts.length === 0) return [];
          const quantity = Math.min(
            2 ** 31 - 1,
            mine.reduce((s, e) => s + e[2] * e[4], 0),
          );
          return [[key, Math.min(...buyouts), quantity]];
        });
        expect(deriveScan(book(list)).items).toEqual(expected);
      }),
    );
  });
});
