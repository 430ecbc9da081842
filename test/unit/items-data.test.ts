import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemKey, KEY_BASE, petKey } from '../../shared/domain/item-key';
import {
  buildSearchIndex,
  type CatalogueLeader,
  type GeneratedItemFile,
  type ItemRecord,
  isAcceptedName,
  isBuildName,
  itemOfKey,
  mergeItems,
  nameOfKey,
  needsRebuild,
  parseGeneratedItemFile,
  REBUILD_AFTER_MS,
  unknownKeys,
} from '../../shared/domain/items';
import { DomainError } from '../../shared/errors';

const generated = (items: Record<string, ItemRecord>, build = '1.15.7'): GeneratedItemFile => ({
  v: 1,
  build,
  source: 'test',
  suffixes: { '5': 'of the Bear' },
  statNames: { '7': 'Stamina' },
  bonusLists: { '100': [5, [[7, 3]]] },
  bonusTrees: { '1': [100] },
  items,
});

const leader = (key: number, n: string, accounts: number, extra: Partial<CatalogueLeader> = {}): CatalogueLeader => ({
  key,
  n,
  accounts,
  q: 2,
  fi: 0,
  fl: 0,
  ...extra,
});

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof DomainError ? e.code : 'other';
  }
  return undefined;
};

describe('generated item file', () => {
  it('accepts a file of the spec shape and keeps only known item fields', () => {
    const f = parseGeneratedItemFile({
      ...generated({ '2589': { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01', sell: 13, st: 20, extra: 1 } as ItemRecord }),
      unknownTop: true,
    });
    expect(f.items['2589']).toEqual({ n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01', sell: 13, st: 20 });
    expect('unknownTop' in f).toBe(false);
  });

  it('refuses a wrong version, a bad build name, a bad item id or a mistyped field with bad_request', () => {
    expect(codeOf(() => parseGeneratedItemFile({ ...generated({}), v: 2 }))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile(generated({}, 'a/b')))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile(generated({ '0': { n: 'x' } })))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile(generated({ '2147483648': { n: 'x' } })))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile(generated({ '12': { q: 11 } })))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile(generated({ '12': { ic: 'Upper' } })))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile(generated({ '12': { rs: 1 } as unknown as ItemRecord })))).toBe('bad_request');
    expect(codeOf(() => parseGeneratedItemFile([]))).toBe('bad_request');
  });

  it('takes build names that are one path segment and cannot be read as <build>-<hash>', () => {
    expect(isBuildName('1.15.7.61582')).toBe(true);
    expect(isBuildName('classic_era-2')).toBe(true);
    expect(isBuildName('x-0123456789abcdef')).toBe(false);
    expect(isBuildName('../x')).toBe(false);
    expect(isBuildName('')).toBe(false);
  });
});

describe('catalogue naming and merge', () => {
  const file = generated({ '10': { n: 'Named', q: 3, il: 10, c: 7, sc: 5, ic: 'icon_a' }, '11': { il: 5, c: 0, sc: 0 } });

  /** Every key has a row in some market (the rule's other condition, tested on its own below). */
  const everyKey = () => true;

  it('accepts a name from two accounts, or from one when generated data has no name (variants never have one)', () => {
    expect(isAcceptedName(leader(10, 'Other', 1), file, everyKey)).toBe(false);
    expect(isAcceptedName(leader(10, 'Other', 2), file, everyKey)).toBe(true);
    expect(isAcceptedName(leader(11, 'Unnamed', 1), file, everyKey)).toBe(true);
    expect(isAcceptedName(leader(99, 'Absent', 1), file, everyKey)).toBe(true);
    expect(isAcceptedName(leader(itemKey(10, 5), 'Named of the Bear', 1), file, everyKey)).toBe(true);
    expect(isAcceptedName(leader(petKey(10, 42), 'Pet', 1), file, everyKey)).toBe(true);
  });

  it("accepts one account's name only for a key with a row in some market (issue 23); two accounts' names always", () => {
    const observed = (key: number) => key === 11;
    expect(isAcceptedName(leader(11, 'Unnamed', 1), file, observed)).toBe(true);
    expect(isAcceptedName(leader(99, 'Absent', 1), file, observed)).toBe(false);
    expect(isAcceptedName(leader(itemKey(10, 5), 'Named of the Bear', 1), file, observed)).toBe(false);
    expect(isAcceptedName(leader(petKey(10, 42), 'Pet', 1), file, observed)).toBe(false);
    expect(isAcceptedName(leader(99, 'Absent', 2), file, observed)).toBe(true);
    const merged = mergeItems(file, [leader(99, 'Absent', 1), leader(itemKey(10, 5), 'Named of the Bear', 1), leader(11, 'Filled', 1)], null, observed);
    expect(merged.items['99']).toBeUndefined();
    expect(merged.variants).toEqual({});
    expect(merged.items['11'].n).toBe('Filled');
  });

  it('adds absent plain keys, fills only missing fields, puts variants aside and lets generated fields win', () => {
    const merged = mergeItems(
      file,
      [
        leader(10, 'Renamed', 5, { q: 4, fi: 777, fl: 2 }),
        leader(11, 'Filled', 1, { q: 1, fi: 55, fl: 1 }),
        leader(99, 'Added', 1, { q: 2, fi: 0, fl: 4 }),
        leader(itemKey(10, 5), 'Named of the Bear', 1, { q: 3, fi: 9 }),
        leader(12, 'Lonely', 0),
      ],
      1234,
      everyKey,
    );
    expect(merged.items['10']).toEqual({ n: 'Named', q: 3, il: 10, c: 7, sc: 5, ic: 'icon_a', fl: 2 });
    expect(merged.items['11']).toEqual({ il: 5, c: 0, sc: 0, n: 'Filled', q: 1, fi: 55, fl: 1 });
    expect(merged.items['99']).toEqual({ n: 'Added', q: 2, fl: 4 });
    expect(merged.variants).toEqual({ [itemKey(10, 5)]: { n: 'Named of the Bear', q: 3, fi: 9 } });
    expect(merged.items['12']).toBeUndefined();
    expect(merged.catalogue).toEqual({ changed: 1234, named: 3 });
    // The input is untouched.
    expect(file.items['11']).toEqual({ il: 5, c: 0, sc: 0 });
  });

  it('matches a reference model of the merge rule for any catalogue', () => {
    const keyArb = fc.oneof(
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 1, max: 30 }).map((i) => itemKey(i, 3)),
    );
    const recArb = fc.record({ n: fc.constantFrom('A', 'B'), q: fc.integer({ min: 0, max: 5 }), ic: fc.constantFrom('ic_x', 'ic_y') }, { requiredKeys: [] });
    fc.assert(
      fc.property(
        fc.dictionary(fc.integer({ min: 1, max: 30 }).map(String), recArb),
        fc.uniqueArray(
          fc.record({
            key: keyArb,
            n: fc.constantFrom('X', 'Y'),
            accounts: fc.integer({ min: 1, max: 3 }),
            q: fc.integer({ min: 0, max: 5 }),
            fi: fc.integer({ min: 0, max: 3 }),
            fl: fc.integer({ min: 0, max: 7 }),
          }),
          { selector: (l) => l.key },
        ),
        fc.uniqueArray(keyArb),
        (items, leaders, rowKeys) => {
          const g = generated(items);
          const observed = new Set(rowKeys);
          const merged = mergeItems(g, leaders, null, (k) => observed.has(k));
          for (const l of leaders) {
            const genRec = g.items[l.key];
            const accepted = l.accounts >= 2 || ((l.key >= KEY_BASE || !genRec?.n) && observed.has(l.key));
            if (l.key >= KEY_BASE) {
              expect(merged.variants[l.key]?.n).toBe(accepted ? l.n : undefined);
              continue;
            }
            const out = merged.items[l.key];
            if (!accepted) {
              expect(out).toEqual(genRec);
              continue;
            }
            // Generated fields win; missing ones come from the catalogue.
            expect(out.n).toBe(genRec?.n ?? l.n);
            expect(out.q).toBe(genRec?.q ?? l.q);
            expect(out.ic).toBe(genRec?.ic);
            expect(out.fi).toBe(genRec?.ic === undefined && l.fi > 0 ? l.fi : undefined);
            expect(out.fl).toBe(l.fl);
          }
        },
      ),
    );
  });
});

describe('reading keys', () => {
  const merged = mergeItems(generated({ '10': { n: 'Cloak', q: 2, c: 4, sc: 1 } }), [leader(itemKey(10, 5), 'Cloak of the Bear', 1)], null, () => true);

  it('answers the item of a key and, for a variant key, its own name', () => {
    expect(itemOfKey(merged, 10)).toEqual({ item: { n: 'Cloak', q: 2, c: 4, sc: 1 } });
    expect(itemOfKey(merged, itemKey(10, 5))).toEqual({ item: { n: 'Cloak', q: 2, c: 4, sc: 1 }, variant: { n: 'Cloak of the Bear', q: 2 } });
    expect(itemOfKey(merged, itemKey(10, 6))).toEqual({ item: { n: 'Cloak', q: 2, c: 4, sc: 1 } });
    expect(itemOfKey(merged, 11)).toEqual({ item: null });
  });

  it('lists keys with no name, ascending and once', () => {
    expect(nameOfKey(merged, itemKey(10, 6))).toBeNull();
    expect(unknownKeys(merged, [itemKey(10, 6), 11, 10, itemKey(10, 5), 11])).toEqual([11, itemKey(10, 6)]);
    expect(unknownKeys(null, [3, 1])).toEqual([1, 3]);
  });
});

describe('search index', () => {
  it('sorts by name case-insensitively, then key, with icon name, else file id, else 0', () => {
    const merged = mergeItems(
      generated({ '5': { n: 'beta', q: 1, ic: 'b', c: 7, sc: 5 }, '3': { n: 'Beta', q: 2, c: 0, sc: 0 }, '9': { n: 'alpha', q: 3 }, '4': { q: 1 } }),
      [leader(itemKey(5, 2), 'Beta of the Owl', 1, { q: 3, fi: 0 }), leader(20, 'Gamma', 1, { fi: 42 })],
      null,
      () => true,
    );
    expect(buildSearchIndex(merged)).toEqual({
      v: 1,
      build: '1.15.7',
      items: [
        [9, 'alpha', 3, 0, null, null],
        [3, 'Beta', 2, 0, 0, 0],
        [5, 'beta', 1, 'b', 7, 5],
        [itemKey(5, 2), 'Beta of the Owl', 3, 'b', 7, 5],
        [20, 'Gamma', 2, 42, null, null],
      ],
    });
  });

  it('is ordered for any names', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.integer({ min: 1, max: 1000 }).map(String), fc.string({ minLength: 1, maxLength: 6 })), (names) => {
        const items: Record<string, ItemRecord> = {};
        for (const [k, n] of Object.entries(names)) items[k] = { n, q: 1 };
        const idx = buildSearchIndex(generated(items)).items;
        expect(idx).toHaveLength(Object.keys(names).length);
        for (let i = 1; i < idx.length; i++) {
          const a = idx[i - 1][1].toLowerCase();
          const b = idx[i][1].toLowerCase();
          expect(a < b || (a === b && idx[i - 1][0] < idx[i][0])).toBe(true);
        }
      }),
    );
  });
});

describe('rebuild rule', () => {
  const built = { hash: '0123456789abcdef', mergedAt: 1_000_000, revision: 3 };

  it('rebuilds missing merged files at once', () => {
    expect(needsRebuild({ hash: null, mergedAt: null, revision: -1 }, 0, 0)).toBe(true);
  });

  it('rebuilds after a name change only once the last build is 10 minutes old', () => {
    expect(needsRebuild(built, 3, built.mergedAt + REBUILD_AFTER_MS * 10)).toBe(false);
    expect(needsRebuild(built, 4, built.mergedAt + REBUILD_AFTER_MS - 1)).toBe(false);
    expect(needsRebuild(built, 4, built.mergedAt + REBUILD_AFTER_MS)).toBe(true);
  });
});
