/**
 * The catalogue port's contract (name reports, entries, the name revision, item builds), run against the
 * DynamoDB adapter (on DynamoDB Local) and the in-memory fake.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import type { CatalogueReport } from '../../shared/domain/item-catalogue';
import { catalogueAccount } from '../../shared/domain/item-catalogue';
import type { CataloguePort } from '../../shared/ports/catalogue';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { MemoryCatalogue } from '../../shared/store/memory/catalogue';
import { freshTable } from '../support/engines';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);

const variants: Array<[string, () => Promise<CataloguePort>]> = [
  ['dynamodb', async () => dynamoCatalogue(await freshTable(new ManualClock(T0)))],
  ['memory', async () => new MemoryCatalogue()],
];

const reports = (keys: number[], n: (k: number) => string): Map<number, CatalogueReport> => new Map(keys.map((k) => [k, { n: n(k), q: 1, fi: 0, fl: 0 }]));

describe.each(variants)('catalogue port (%s)', (_name, make) => {
  it('counts every account once when many upload the same keys at the same time', async () => {
    const port = await make();
    const keys = Array.from({ length: 70 }, (_, i) => 5000 + i);
    const accounts = ['u1', 'u2', 'u3'].map(catalogueAccount);
    const outcomes = await Promise.all(
      accounts.map((a) =>
        port.recordCatalogueReports(
          a,
          reports(keys, (k) => `Item ${k}`),
          T0,
        ),
      ),
    );
    // Exactly one upload created each key.
    expect(outcomes.reduce((s, o) => s + o.added, 0)).toBe(keys.length);
    for (const k of [keys[0], keys[50], keys[69]]) {
      const entry = await port.catalogueEntry(k);
      expect(entry).toMatchObject({ key: k, accounts: 3, names: [expect.objectContaining({ n: `Item ${k}`, accounts: 3 })] });
    }
    const leaders = await port.catalogueLeaders();
    expect(leaders.map((l) => l.key)).toEqual(keys);
    expect(leaders[0]).toEqual({ key: 5000, n: 'Item 5000', accounts: 3, q: 1, fi: 0, fl: 0 });
  });

  it('changes nothing when an account repeats its reports', async () => {
    const port = await make();
    const account = catalogueAccount('repeat');
    expect(await port.nameRevision()).toEqual({ revision: 0, changedAt: null });
    const first = await port.recordCatalogueReports(
      account,
      reports([9001, 9002], () => 'Same'),
      T0,
    );
    expect(first).toMatchObject({ added: 2, known: 0, nameChanged: true });
    expect(await port.nameRevision()).toEqual({ revision: 1, changedAt: T0 });
    const again = await port.recordCatalogueReports(
      account,
      reports([9001, 9002], () => 'Same'),
      T0 + 1000,
    );
    expect(again).toEqual({ added: 0, known: 2, nameChanged: false });
    expect(await port.nameRevision()).toEqual({ revision: 1, changedAt: T0 });
    expect((await port.catalogueEntry(9001))?.accounts).toBe(1);
    expect(await port.catalogueEntry(1)).toBeNull();
  });

  it('refreshes a key’s lastSeen from unchanged reports at most hourly', async () => {
    const port = await make();
    const account = catalogueAccount('seen');
    await port.recordCatalogueReports(
      account,
      reports([9200], () => 'Seen'),
      T0,
    );
    await port.recordCatalogueReports(
      account,
      reports([9200], () => 'Seen'),
      T0 + 60_000,
    );
    expect((await port.catalogueEntry(9200))?.lastSeen).toBe(T0);
    await port.recordCatalogueReports(
      account,
      reports([9200], () => 'Seen'),
      T0 + 3_600_000,
    );
    expect(await port.catalogueEntry(9200)).toMatchObject({ firstSeen: T0, lastSeen: T0 + 3_600_000 });
  });

  it("moves an account's vote when it renames a key", async () => {
    const port = await make();
    const [a, b] = [catalogueAccount('ra'), catalogueAccount('rb')];
    await port.recordCatalogueReports(
      a,
      reports([9100], () => 'Old'),
      T0,
    );
    await port.recordCatalogueReports(
      b,
      reports([9100], () => 'Old'),
      T0,
    );
    await port.recordCatalogueReports(
      b,
      reports([9100], () => 'New'),
      T0 + 1,
    );
    const entry = await port.catalogueEntry(9100);
    expect(entry?.accounts).toBe(2);
    expect(entry?.names.map((t) => [t.n, t.accounts])).toEqual([
      ['Old', 1],
      ['New', 1],
    ]);
  });

  it('refuses an upload whose keys new to the catalogue would pass the daily quota, recording nothing; known keys never count', async () => {
    const port = await make();
    const account = catalogueAccount('quota');
    const first = await port.recordCatalogueReports(
      account,
      reports([1, 2, 3, 4, 5, 6], () => 'A'),
      T0,
      10,
    );
    expect(first).toMatchObject({ added: 6, known: 0 });
    const over = await port.recordCatalogueReports(
      account,
      reports([7, 8, 9, 10, 11], () => 'A'),
      T0 + 1,
      10,
    );
    expect(over).toMatchObject({ overQuota: true, added: 0, known: 0 });
    expect(await port.catalogueEntry(7)).toBeNull();
    // Keys already in the catalogue never count; four more new keys fill the quota exactly.
    expect(
      await port.recordCatalogueReports(
        account,
        reports([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], () => 'B'),
        T0 + 2,
        10,
      ),
    ).toMatchObject({
      added: 4,
      known: 6,
    });
    expect(
      (
        await port.recordCatalogueReports(
          account,
          reports([11], () => 'A'),
          T0 + 3,
          10,
        )
      ).overQuota,
    ).toBe(true);
    // Another account has its own quota, and the next UTC day starts again.
    expect(
      (
        await port.recordCatalogueReports(
          catalogueAccount('other'),
          reports([11], () => 'A'),
          T0 + 4,
          10,
        )
      ).added,
    ).toBe(1);
    expect(
      await port.recordCatalogueReports(
        account,
        reports([12, 13], () => 'A'),
        T0 + 86_400_000,
        10,
      ),
    ).toMatchObject({ added: 2 });
  });

  it("withdraws the reports of accounts idle past the lifetime from their keys' names, and keeps active ones", async () => {
    const port = await make();
    const [gone, stays] = [catalogueAccount('gone'), catalogueAccount('stays')];
    await port.recordCatalogueReports(
      gone,
      reports([7001, 7002], () => 'Gone'),
      T0,
    );
    await port.recordCatalogueReports(
      stays,
      reports([7001], () => 'Stays'),
      T0,
    );
    await port.recordCatalogueReports(
      stays,
      reports([7003], () => 'Later'),
      T0 + 2 * 86_400_000,
    );
    const before = await port.nameRevision();
    expect(await port.expireCatalogueAccounts(T0 + 1, T0 + 3 * 86_400_000, 10)).toEqual({ accounts: 1, reports: 2 });
    expect(await port.catalogueEntry(7001)).toMatchObject({ accounts: 1, names: [expect.objectContaining({ n: 'Stays', accounts: 1 })] });
    expect((await port.catalogueEntry(7002))?.names).toEqual([]);
    expect((await port.catalogueLeaders()).map((l) => l.key)).toEqual([7001, 7003]);
    expect((await port.nameRevision()).revision).toBeGreaterThan(before.revision);
    // Gone for good: nothing of it is left to expire; an account that reports again counts once.
    expect(await port.expireCatalogueAccounts(T0 + 1, T0 + 3 * 86_400_000, 10)).toEqual({ accounts: 0, reports: 0 });
    await port.recordCatalogueReports(
      gone,
      reports([7001], () => 'Stays'),
      T0 + 4 * 86_400_000,
    );
    expect(await port.catalogueEntry(7001)).toMatchObject({ accounts: 2, names: [expect.objectContaining({ n: 'Stays', accounts: 2 })] });
  });

  it('reads only the leaders a merge admits', async () => {
    const port = await make();
    await port.recordCatalogueReports(
      catalogueAccount('f'),
      reports([8001, 8002, 8003], (k) => `K${k}`),
      T0,
    );
    expect((await port.catalogueLeaders((l) => l.key !== 8002)).map((l) => l.key)).toEqual([8001, 8003]);
  });

  it('keeps item builds: published, merged only for the publication it read, and the current build', async () => {
    const port = await make();
    expect(await port.getBuild('11.0.0')).toBeNull();
    expect(await port.getCurrent()).toBeNull();
    const rec = await port.putPublishedBuild('11.0.0', 'upload', T0);
    expect(await port.getBuild('11.0.0')).toEqual({
      build: '11.0.0',
      source: 'upload',
      publishedAt: T0,
      hash: null,
      mergedAt: null,
      revision: -1,
      changedAt: null,
    });
    expect(await port.recordMerged(rec, { hash: 'h1', mergedAt: T0 + 1, revision: 3, changedAt: T0 })).toBe(true);
    expect(await port.recordMerged(rec, { hash: 'h0', mergedAt: T0 + 2, revision: 2, changedAt: T0 })).toBe(false);
    expect(await port.getBuild('11.0.0')).toMatchObject({ hash: 'h1', mergedAt: T0 + 1, revision: 3 });
    const republished = await port.putPublishedBuild('11.0.0', 'upload', T0 + 10);
    expect(await port.recordMerged(rec, { hash: 'h2', mergedAt: T0 + 11, revision: 4, changedAt: T0 })).toBe(false);
    expect(await port.recordMerged(republished, { hash: 'h2', mergedAt: T0 + 11, revision: 4, changedAt: T0 })).toBe(true);
    await port.setCurrent({ build: '11.0.0', hash: null, at: T0 });
    expect(await port.updateCurrentFiles({ build: '11.0.0', hash: 'h2', at: T0 + 11 })).toBe(true);
    expect(await port.updateCurrentFiles({ build: '10.0.0', hash: 'x', at: T0 + 12 })).toBe(false);
    expect(await port.getCurrent()).toEqual({ build: '11.0.0', hash: 'h2', at: T0 + 11 });
  });
});
