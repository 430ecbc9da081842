import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CatalogueUploadBody } from '../../shared/api/catalogue-upload.schemas';
import { parseAs } from '../../shared/api/zod-parse';
import { applyReport, CATALOGUE_NAMES_KEPT, type CatalogueEntry, type CatalogueReport, leaderOf } from '../../shared/domain/item-catalogue';
import { itemKey } from '../../shared/domain/item-key';
import { DomainError } from '../../shared/errors';

/** The route's parse of the catalogue upload (shared/api/catalogue-upload.schemas.ts). */
const parseCatalogueUpload = (body: unknown) => parseAs(CatalogueUploadBody, body, 'bad_request');

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof DomainError ? e.code : 'other';
  }
  return undefined;
};

const report = (n: string, q = 1, fi = 0, fl = 0): CatalogueReport => ({ n, q, fi, fl });

describe('catalogue upload body', () => {
  it('reads entries, trims names and keeps the last of a repeated key', () => {
    const up = parseCatalogueUpload({
      build: '1.15.7',
      items: [
        [10, '  Cloth ', 1, 0, 0],
        [11, 'Ore', 2, 133, 1],
        [10, 'Linen', 3, 5, 7],
      ],
    });
    expect(up.build).toBe('1.15.7');
    expect([...up.items]).toEqual([
      [11, report('Ore', 2, 133, 1)],
      [10, report('Linen', 3, 5, 7)],
    ]);
  });

  it('takes 5000 entries and refuses 5001', () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => [i + 1, 'x', 0, 0, 0]);
    expect(parseCatalogueUpload({ items: entries(5000) }).items.size).toBe(5000);
    expect(codeOf(() => parseCatalogueUpload({ items: entries(5001) }))).toBe('bad_request');
  });

  it('refuses any bad entry with bad_request', () => {
    const bad = (entry: unknown) => codeOf(() => parseCatalogueUpload({ items: [[1, 'ok', 0, 0, 0], entry] }));
    expect(bad([0, 'x', 0, 0, 0])).toBe('bad_request');
    expect(bad([itemKey(1, 0) + 2147483648 * 65536, 'x', 0, 0, 0])).toBe('bad_request');
    expect(bad([1, '   ', 0, 0, 0])).toBe('bad_request');
    expect(bad([1, 'x'.repeat(201), 0, 0, 0])).toBe('bad_request');
    expect(bad([1, 'x', 11, 0, 0])).toBe('bad_request');
    expect(bad([1, 'x', 0, -1, 0])).toBe('bad_request');
    expect(bad([1, 'x', 0, 0, 8])).toBe('bad_request');
    expect(bad([1, 'x', 0, 0])).toBe('bad_request');
    expect(bad({ key: 1 })).toBe('bad_request');
    expect(codeOf(() => parseCatalogueUpload({ items: 'x' }))).toBe('bad_request');
    expect(codeOf(() => parseCatalogueUpload([]))).toBe('bad_request');
    expect(codeOf(() => parseCatalogueUpload({ build: 5, items: [] }))).toBe('bad_request');
  });

  it('counts a name of 200 characters (code points) once trimmed as valid', () => {
    expect(parseCatalogueUpload({ items: [[1, ` ${'é'.repeat(200)} `, 0, 0, 0]] }).items.get(1)?.n).toHaveLength(200);
    expect(parseCatalogueUpload({ items: [[1, '😀'.repeat(200), 0, 0, 0]] }).items.size).toBe(1);
  });
});

describe('naming tallies', () => {
  const run = (events: Array<[account: string, r: CatalogueReport, at: number]>): CatalogueEntry | null => {
    let entry: CatalogueEntry | null = null;
    const latest = new Map<string, CatalogueReport>();
    for (const [account, r, at] of events) {
      entry = applyReport(entry, 7, latest.get(account) ?? null, r, at).entry;
      latest.set(account, r);
    }
    return entry;
  };

  it('leads with the name most accounts give; a tie goes to the name seen first', () => {
    const e = run([
      ['a', report('Second'), 2],
      ['b', report('First'), 1],
    ]);
    // Both have one account; "First" was seen at 1, "Second" at 2.
    expect(leaderOf(e!)?.n).toBe('First');
    const e2 = run([
      ['a', report('Second'), 2],
      ['b', report('First'), 1],
      ['c', report('Second'), 3],
    ]);
    expect(leaderOf(e2!)).toMatchObject({ n: 'Second', accounts: 2 });
  });

  it("takes quality, icon and flags from the newest upload of the leading name, and an account's change of mind moves its vote", () => {
    const e = run([
      ['a', report('Cloth', 1, 10, 1), 1],
      ['b', report('Cloth', 3, 20, 2), 2],
      ['b', report('Rag', 3, 20, 2), 3],
    ]);
    expect(leaderOf(e!)).toMatchObject({ n: 'Cloth', accounts: 1, q: 3, fi: 20, fl: 2 });
    expect(e!.accounts).toBe(2);
    expect(e!.names.map((t) => [t.n, t.accounts])).toEqual([
      ['Cloth', 1],
      ['Rag', 1],
    ]);
  });

  it('says the accepted name may have changed when the leader changes or crosses two accounts', () => {
    const a = applyReport(null, 7, null, report('X'), 1);
    expect(a).toMatchObject({ added: true, nameChanged: true });
    const b = applyReport(a.entry, 7, null, report('X'), 2);
    expect(b).toMatchObject({ added: false, nameChanged: true });
    const c = applyReport(b.entry, 7, null, report('X', 5), 3);
    expect(c.nameChanged).toBe(false);
    const d = applyReport(c.entry, 7, null, report('Y'), 4);
    expect(d.nameChanged).toBe(false);
  });

  it('matches a model of latest reports per account for any sequence of reports', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('X', 'Y', 'Z')), { minLength: 1, maxLength: 30 }), (events) => {
        const entry = run(events.map(([acc, n], i) => [acc, report(n), i]))!;
        const latest = new Map<string, string>();
        for (const [acc, n] of events) latest.set(acc, n);
        const counts = new Map<string, number>();
        for (const n of latest.values()) counts.set(n, (counts.get(n) ?? 0) + 1);
        const max = Math.max(...counts.values());
        const lead = leaderOf(entry)!;
        expect(entry.accounts).toBe(latest.size);
        expect(lead.accounts).toBe(max);
        expect(counts.get(lead.n)).toBe(max);
        expect(new Map(entry.names.map((t) => [t.n, t.accounts]))).toEqual(counts);
      }),
    );
  });

  it('keeps a key’s entry within one DynamoDB item however many accounts report distinct names, keeping the leaders', () => {
    // Two accounts agree on the real name first; then 2000 accounts each report a different 200-character name.
    let entry = applyReport(null, 7, null, report('Linen Cloth'), 1).entry;
    entry = applyReport(entry, 7, null, report('Linen Cloth'), 2).entry;
    for (let i = 0; i < 2000; i++) entry = applyReport(entry, 7, null, report(`${'ñ'.repeat(190)}${String(i).padStart(10, '0')}`), 3 + i).entry;
    expect(entry.names.length).toBe(CATALOGUE_NAMES_KEPT);
    expect(entry.accounts).toBe(2002);
    expect(leaderOf(entry)).toMatchObject({ n: 'Linen Cloth', accounts: 2 });
    // The newest report is always tallied (it evicts another one-account name, never itself).
    expect(entry.names.some((t) => t.n.endsWith('0000001999'))).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(entry), 'utf8')).toBeLessThan(400 * 1024);
  });
});
