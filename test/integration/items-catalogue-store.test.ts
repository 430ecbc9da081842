import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueReport } from '../../shared/domain/item-catalogue';
import { services } from '../../shared/services';
import { catalogueAccount, catalogueEntry, catalogueLeaders, nameRevision, recordCatalogueReports } from '../../shared/store/catalogue';
import { type Local, startLocal } from '../support/local';

/** The catalogue adapter against DynamoDB Local (the runtime's services, in this process). */
describe('catalogue store', () => {
  let local: Local;

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  const reports = (keys: number[], n: (k: number) => string): Map<number, CatalogueReport> => new Map(keys.map((k) => [k, { n: n(k), q: 1, fi: 0, fl: 0 }]));

  it('counts every account once when many upload the same keys at the same time', async () => {
    const keys = Array.from({ length: 70 }, (_, i) => 5000 + i);
    const accounts = ['u1', 'u2', 'u3'].map(catalogueAccount);
    const now = await local.now();
    const outcomes = await Promise.all(accounts.map((a) => recordCatalogueReports(services(), a, reports(keys, (k) => `Item ${k}`), now)));
    // Exactly one upload created each key.
    expect(outcomes.reduce((s, o) => s + o.added, 0)).toBe(keys.length);
    for (const k of [keys[0], keys[50], keys[69]]) {
      const entry = await catalogueEntry(services(), k);
      expect(entry).toMatchObject({ key: k, accounts: 3, names: [expect.objectContaining({ n: `Item ${k}`, accounts: 3 })] });
    }
    const leaders = await catalogueLeaders(services());
    expect(leaders.filter((l) => l.key >= 5000 && l.key < 5070)).toHaveLength(70);
  });

  it('changes nothing when an account repeats its reports', async () => {
    const account = catalogueAccount('repeat');
    const now = await local.now();
    const first = await recordCatalogueReports(services(), account, reports([9001, 9002], () => 'Same'), now);
    expect(first).toMatchObject({ added: 2, known: 0, nameChanged: true });
    const rev = await nameRevision(services());
    const again = await recordCatalogueReports(services(), account, reports([9001, 9002], () => 'Same'), now + 1000);
    expect(again).toEqual({ added: 0, known: 2, nameChanged: false });
    expect(await nameRevision(services())).toEqual(rev);
    expect((await catalogueEntry(services(), 9001))?.accounts).toBe(1);
  });

  it("moves an account's vote when it renames a key", async () => {
    const [a, b] = [catalogueAccount('ra'), catalogueAccount('rb')];
    const now = await local.now();
    await recordCatalogueReports(services(), a, reports([9100], () => 'Old'), now);
    await recordCatalogueReports(services(), b, reports([9100], () => 'Old'), now);
    await recordCatalogueReports(services(), b, reports([9100], () => 'New'), now + 1);
    const entry = await catalogueEntry(services(), 9100);
    expect(entry?.accounts).toBe(2);
    expect(entry?.names.map((t) => [t.n, t.accounts])).toEqual([
      ['Old', 1],
      ['New', 1],
    ]);
  });
});
