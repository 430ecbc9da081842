/** Issue 23: one key read from an items file's text matches the parsed file's answer, for any file. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemKey, petKey } from '../../shared/domain/item-key';
import { itemOfKeyInText } from '../../shared/domain/item-text';
import { itemOfKey, type MergedItemFile, mergeItems } from '../../shared/domain/items';

const nameArb = fc.string({ minLength: 1, maxLength: 30 }).map((s) => `${s}"{}[]\\:"12":{`);

describe('one key from the items text', () => {
  it('answers as the parsed file does, for any names and keys', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.integer({ min: 1, max: 60 }).map(String),
          fc.record({ n: nameArb, q: fc.integer({ min: 0, max: 5 }), bt: fc.array(fc.nat(20)) }, { requiredKeys: ['q'] }),
        ),
        fc.array(
          fc.record({
            key: fc.oneof(
              fc.integer({ min: 1, max: 60 }).map((i) => itemKey(i, 3)),
              fc.integer({ min: 1, max: 60 }).map((i) => petKey(i, 7)),
            ),
            n: nameArb,
          }),
          {
            maxLength: 20,
          },
        ),
        fc.integer({ min: 1, max: 70 }),
        (items, variants, probe) => {
          const generated = {
            v: 1 as const,
            build: 'b',
            source: 's',
            suffixes: { '3': 'of "x":{' },
            statNames: { '12': 'S' },
            bonusLists: {},
            bonusTrees: {},
            items,
          };
          const leaders = variants.map((v) => ({ key: v.key, n: v.n, accounts: 2, q: 1, fi: 0, fl: 0 }));
          const merged: MergedItemFile = mergeItems(generated, leaders, null, () => true);
          const text = JSON.stringify(merged);
          for (const key of [probe, itemKey(probe, 3), petKey(probe, 7), itemKey(probe, 4)]) expect(itemOfKeyInText(text, key)).toEqual(itemOfKey(merged, key));
        },
      ),
    );
  });
});
