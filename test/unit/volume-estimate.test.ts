import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../shared/clock';
import type { BookEntry } from '../../shared/domain/book';
import { addVolume, estimateVolume, type Volume, type VolumePage, volumeApplies } from '../../shared/domain/volume-estimate';

describe('estimateVolume', () => {
  it('counts auctions gone from the short band as expired and the rest as sold', () => {
    const prev: BookEntry[] = [
      [1, 100, 5, 1, 2],
      [1, 100, 5, 3, 3],
    ];
    const next: BookEntry[] = [[1, 100, 5, 3, 1]];
    // prev 5, next 1: gone 4, short 2 → expired 2, sold 2; times stack 5.
    expect(estimateVolume(prev, next)).toEqual([[1, [0, 10, 10]]]);
  });

  it('counts new auctions at a (price, stack) key as listed', () => {
    expect(
      estimateVolume(
        [[1, 100, 5, 3, 1]],
        [
          [1, 100, 5, 4, 3],
          [1, 120, 20, 4, 1],
        ],
      ),
    ).toEqual([[1, [30, 0, 0]]]);
  });

  it('treats a repost at a new price as sold plus listed', () => {
    expect(estimateVolume([[1, 100, 1, 3, 1]], [[1, 90, 1, 4, 1]])).toEqual([[1, [1, 1, 0]]]);
  });

  it('covers items in either book, ascending, with zeros for unchanged items', () => {
    const prev: BookEntry[] = [
      [1, 5, 1, 2, 1],
      [3, 5, 1, 1, 1],
    ];
    const next: BookEntry[] = [
      [1, 5, 1, 2, 1],
      [2, 7, 10, 4, 2],
    ];
    expect(estimateVolume(prev, next)).toEqual([
      [1, [0, 0, 0]],
      [2, [20, 0, 0]],
      [3, [0, 0, 1]],
    ]);
  });

  it('keeps bid-only auctions as their own (price 0, stack) key', () => {
    expect(estimateVolume([[1, 0, 2, 2, 1]], [])).toEqual([[1, [0, 2, 0]]]);
  });

  it('adds estimates to a day page', () => {
    const page: VolumePage = new Map([[1, [1, 2, 3]]]);
    addVolume(page, [
      [1, [10, 20, 30]],
      [2, [1, 0, 0]],
    ]);
    expect([...page]).toEqual([
      [1, [11, 22, 33]],
      [2, [1, 0, 0]],
    ]);
  });

  it('applies only to a replaced book at most 6 hours older', () => {
    expect(volumeApplies(0, 6 * HOUR_MS)).toBe(true);
    expect(volumeApplies(0, 6 * HOUR_MS + 1)).toBe(false);
    expect(volumeApplies(10, 10)).toBe(false);
  });
});

/** Spec Order books rule 4, written per (price, stack) key over plain maps. */
function model(prev: BookEntry[], next: BookEntry[]): [number, Volume][] {
  const count = (list: BookEntry[], band?: number) => {
    const m = new Map<string, number>();
    for (const [k, p, s, b, n] of list) if (band === undefined || b === band) m.set(`${k}|${p}|${s}`, (m.get(`${k}|${p}|${s}`) ?? 0) + n);
    return m;
  };
  const prevN = count(prev);
  const nextN = count(next);
  const shortN = count(prev, 1);
  const items = [...new Set([...prev, ...next].map((e) => e[0]))].sort((a, b) => a - b);
  return items.map((item) => {
    const v: Volume = [0, 0, 0];
    for (const id of new Set([...prevN.keys(), ...nextN.keys()])) {
      const [k, , s] = id.split('|').map(Number);
      if (k !== item) continue;
      const p = prevN.get(id) ?? 0;
      const n = nextN.get(id) ?? 0;
      const gone = Math.max(0, p - n);
      const added = Math.max(0, n - p);
      const expired = Math.min(gone, shortN.get(id) ?? 0);
      v[0] += added * s;
      v[1] += (gone - expired) * s;
      v[2] += expired * s;
    }
    return [item, v];
  });
}

const book = fc
  .uniqueArray(
    fc.tuple(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 4 }),
      fc.constantFrom(1, 5, 20),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 6 }),
    ),
    { selector: (e) => `${e[0]}|${e[1]}|${e[2]}|${e[3]}`, maxLength: 30 },
  )
  .map((l) => l.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]) as BookEntry[]);

describe('estimateVolume properties', () => {
  it('matches the per-key model of Order books rule 4', () => {
    fc.assert(
      fc.property(book, book, (prev, next) => {
        expect(estimateVolume(prev, next)).toEqual(model(prev, next));
      }),
    );
  });

  it('balances: listed - sold - expired equals the change in listed units', () => {
    fc.assert(
      fc.property(book, book, (prev, next) => {
        const units = (list: BookEntry[], key: number) => list.filter((e) => e[0] === key).reduce((s, e) => s + e[2] * e[4], 0);
        for (const [key, [listed, sold, expired]] of estimateVolume(prev, next)) {
          expect(listed - sold - expired).toBe(units(next, key) - units(prev, key));
        }
      }),
    );
  });

  it('estimates nothing between a book and itself', () => {
    fc.assert(
      fc.property(book, (b) => {
        for (const [, v] of estimateVolume(b, b)) expect(v).toEqual([0, 0, 0]);
      }),
    );
  });
});
