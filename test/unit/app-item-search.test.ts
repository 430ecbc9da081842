/** Item search over the search index (issue 24 point 5): a typed key, then names starting with the text, then names containing it. */
import { describe, expect, it } from 'vitest';
import { itemLabel, matchItems, type SearchEntry } from '../../app/items/match-items';

const INDEX: SearchEntry[] = [
  [2589, 'Linen Cloth', 1, 'inv_fabric_linen_01', 7, 5],
  [2592, 'Wool Cloth', 1, 'inv_fabric_wool_01', 7, 5],
  [4306, 'Silk Cloth', 1, 'inv_fabric_silk_01', 7, 5],
  [14047, 'Runecloth', 1, 'inv_fabric_runecloth_01', 7, 5],
  [2996, 'Bolt of Linen Cloth', 1, 'inv_fabric_linen_02', 7, 5],
];

describe('item search', () => {
  it('finds names starting with the text first, then names containing it, case-insensitively', () => {
    expect(matchItems(INDEX, 'linen').map((m) => m.key)).toEqual([2589, 2996]);
    expect(matchItems(INDEX, 'rune').map((m) => m.key)).toEqual([14047]);
    expect(matchItems(INDEX, 'CLOTH').map((m) => m.name)).toEqual(['Linen Cloth', 'Wool Cloth', 'Silk Cloth', 'Runecloth', 'Bolt of Linen Cloth']);
    expect(matchItems(INDEX, 'cloth', 2)).toHaveLength(2);
  });

  it('takes a typed item key, named when the index knows it', () => {
    expect(matchItems(INDEX, '2589')[0]).toEqual({ key: 2589, name: 'Linen Cloth' });
    expect(matchItems([], '123456')).toEqual([{ key: 123456, name: null }]);
    expect(matchItems([], '0')).toEqual([]);
    expect(matchItems(INDEX, '  ')).toEqual([]);
  });

  it('labels a key by its name, or as Item <key>', () => {
    expect(itemLabel(INDEX, 14047)).toBe('Runecloth');
    expect(itemLabel(INDEX, 99)).toBe('Item 99');
  });
});
