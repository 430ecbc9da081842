/**
 * Whole-market answers list every item of any period once, ascending (spec Market reads: items ascending): the
 * union of the periods' ascending key lists (shared/domain/sorted-keys.ts unionSorted) is exactly the sorted set of their keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unionSorted } from '../../shared/domain/sorted-keys';

const keyList = fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 60 }).map((ks) => Float64Array.from(ks).sort());

describe('the item keys of a whole-market answer', () => {
  it("are the union of every period's keys, ascending, each once", () => {
    fc.assert(
      fc.property(fc.array(keyList, { maxLength: 8 }), fc.boolean(), (lists, repeat) => {
        const all = repeat && lists.length > 0 ? [...lists, lists[0], lists[0]] : lists;
        const got = all.reduce<Float64Array>((acc, ks) => unionSorted(acc, ks), new Float64Array(0));
        expect([...got]).toEqual([...new Set(all.flatMap((ks) => [...ks]))].sort((a, b) => a - b));
      }),
    );
  });
});
