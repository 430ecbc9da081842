/**
 * Issue 23: the items rebuild's memory stays bounded. However many keys one account floods the catalogue
 * with, the rebuild holds only the leaders it merges (names of two accounts, or of one for a key with a row
 * in some market): the catalogue is read through that filter, never whole. Memory fakes, no AWS.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import type { CatalogueReport } from '../../shared/domain/item-catalogue';
import { catalogueAccount } from '../../shared/domain/item-catalogue';
import { itemKey } from '../../shared/domain/item-key';
import type { CatalogueLeader } from '../../shared/domain/items';
import { MARKETS } from '../../shared/domain/market';
import type { RowTable } from '../../shared/domain/merge';
import { publishGeneratedItems, rebuildCurrentItems } from '../../shared/items/publish';
import type { Services } from '../../shared/services';
import { MemoryCatalogue } from '../../shared/store/memory/catalogue';
import { MemoryFiles } from '../../shared/store/memory/files';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const FLOOD = 20_000;

describe('the items rebuild under a catalogue flood', () => {
  it('holds only the leaders it merges, whatever the number of keys one account reported', async () => {
    const clock = new ManualClock(T0);
    const catalogue = new MemoryCatalogue();
    const held: number[] = [];
    const read = catalogue.catalogueLeaders.bind(catalogue);
    catalogue.catalogueLeaders = async (admit?: (l: CatalogueLeader) => boolean) => {
      const out = await read(admit);
      held.push(out.length);
      return out;
    };
    // Two keys have a row in some market; nothing else does.
    const observed = [700_000, itemKey(2589, 10)];
    const row = { price: 100, quantity: 1, at: T0, reader: 'r', changedAt: T0 };
    const market = { pages: { rows: async (m: string): Promise<RowTable> => new Map(m === MARKETS[0] ? observed.map((k) => [k, row]) : []) } };
    const svc = { clock, catalogue, files: new MemoryFiles(clock), log: () => {}, market } as unknown as Pick<
      Services,
      'clock' | 'catalogue' | 'files' | 'log' | 'market'
    >;
    await publishGeneratedItems(svc, {
      v: 1,
      build: '2.0.1',
      source: 't',
      suffixes: {},
      statNames: {},
      bonusLists: {},
      bonusTrees: {},
      items: { '2589': { n: 'Linen Cloth', q: 1 } },
    });

    const flood = new Map<number, CatalogueReport>();
    for (let i = 0; i < FLOOD / 2; i++) flood.set(700_000 + i, { n: `${i} ${'x'.repeat(190)}`, q: 4, fi: 0, fl: 0 });
    for (let i = 0; i < FLOOD / 2; i++) flood.set(itemKey(2589, 10 + i), { n: `v${i}`, q: 4, fi: 0, fl: 2 });
    await catalogue.recordCatalogueReports(catalogueAccount('flooder'), flood, clock.now());
    // A name two accounts agree on is merged without a row.
    const pair = new Map([[5555, { n: 'Pair', q: 1, fi: 0, fl: 0 }]]);
    for (const a of ['a', 'b']) await catalogue.recordCatalogueReports(catalogueAccount(a), pair, clock.now());

    clock.advance(11 * 60_000);
    held.length = 0;
    const out = await rebuildCurrentItems(svc);
    expect(out.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(held).toEqual([3]);
    const merged = JSON.parse((await import('node:zlib')).gunzipSync((await svc.files.get(`items/v1/2.0.1-${out.hash}/items.json.gz`))!).toString());
    expect(Object.keys(merged.items).sort()).toEqual(['2589', '5555', '700000']);
    expect(Object.keys(merged.variants)).toEqual([String(itemKey(2589, 10))]);
  });
});
