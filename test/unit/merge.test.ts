import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scan, ScanItem } from '../../shared/domain/derived-scan';
import { type AuctionRow, applyClientRow, mergeScan, pickRows, type RowTable, rowsChangedSince, toAuctionRow } from '../../shared/domain/merge';

const T = 1_717_000_000_000;
const scan = (at: number, items: ScanItem[], complete = true): Scan => ({ at, complete, items });
const table = (rows: RowTable): AuctionRow[] => [...rows].map(([k, r]) => toAuctionRow(k, r)).sort((a, b) => a[0] - b[0]);

describe('mergeScan', () => {
  it('creates rows for new items', () => {
    const rows: RowTable = new Map();
    const out = mergeScan(
      rows,
      scan(T, [
        [1, 50, 3],
        [2, 70, 1],
      ]),
      'alice',
      T + 5,
    );
    expect(table(rows)).toEqual([
      [1, 50, 3, T],
      [2, 70, 1, T],
    ]);
    expect(rows.get(1)).toEqual({ price: 50, quantity: 3, at: T, reader: 'alice', changedAt: T + 5 });
    expect(out).toEqual({ changed: [1, 2], gone: 0, delisted: 0 });
  });

  it('marks rows missing from a complete scan as gone', () => {
    const rows: RowTable = new Map();
    mergeScan(
      rows,
      scan(T, [
        [1, 50, 3],
        [2, 70, 1],
      ]),
      'alice',
      T,
    );
    const out = mergeScan(rows, scan(T + 10, [[2, 60, 4]]), 'bob', T + 20);
    expect(table(rows)).toEqual([
      [1, null, 0, T + 10],
      [2, 60, 4, T + 10],
    ]);
    expect(rows.get(1)?.reader).toBe('bob');
    expect(out).toEqual({ changed: [1, 2], gone: 1, delisted: 1 });
  });

  it('does not mark rows gone from an incomplete scan', () => {
    const rows: RowTable = new Map();
    mergeScan(rows, scan(T, [[1, 50, 3]]), 'a', T);
    mergeScan(rows, scan(T + 10, [[2, 60, 4]], false), 'a', T + 20);
    expect(table(rows)).toEqual([
      [1, 50, 3, T],
      [2, 60, 4, T + 10],
    ]);
  });

  it('changes no rows for a complete scan with no items', () => {
    const rows: RowTable = new Map();
    mergeScan(rows, scan(T, [[1, 50, 3]]), 'a', T);
    expect(mergeScan(rows, scan(T + 10, []), 'a', T + 20)).toEqual({ changed: [], gone: 0, delisted: 0 });
    expect(table(rows)).toEqual([[1, 50, 3, T]]);
  });

  it('keeps a row newer than a late scan, both for the item and for gone marking', () => {
    const rows: RowTable = new Map();
    mergeScan(
      rows,
      scan(T + 100, [
        [1, 50, 3],
        [2, 9, 9],
      ]),
      'a',
      T,
    );
    const out = mergeScan(
      rows,
      scan(T, [
        [1, 40, 1],
        [3, 1, 1],
      ]),
      'b',
      T + 1,
    );
    expect(table(rows)).toEqual([
      [1, 50, 3, T + 100],
      [2, 9, 9, T + 100],
      [3, 1, 1, T],
    ]);
    expect(out.changed).toEqual([3]);
  });

  it('lets a scan with an equal at merged later replace the row', () => {
    const rows: RowTable = new Map();
    mergeScan(rows, scan(T, [[1, 50, 3]]), 'a', T);
    mergeScan(rows, scan(T, [[1, 45, 2]]), 'b', T + 1);
    expect(table(rows)).toEqual([[1, 45, 2, T]]);
  });

  it('does not mark gone a row whose at equals the complete scan', () => {
    const rows: RowTable = new Map();
    mergeScan(rows, scan(T, [[1, 50, 3]]), 'a', T);
    mergeScan(rows, scan(T, [[2, 45, 2]]), 'b', T + 1);
    expect(table(rows)).toEqual([
      [1, 50, 3, T],
      [2, 45, 2, T],
    ]);
  });

  it('re-marks an already gone row with the newer scan time', () => {
    const rows: RowTable = new Map();
    mergeScan(
      rows,
      scan(T, [
        [1, 50, 3],
        [2, 1, 1],
      ]),
      'a',
      T,
    );
    mergeScan(rows, scan(T + 1, [[2, 1, 1]]), 'a', T + 1);
    const out = mergeScan(rows, scan(T + 2, [[2, 1, 1]]), 'a', T + 2);
    expect(rows.get(1)).toMatchObject({ price: null, quantity: 0, at: T + 2 });
    expect(out.changed).toEqual([1, 2]);
    // Marked gone again, but it was not listed: nothing was taken off the market.
    expect(out).toMatchObject({ gone: 1, delisted: 0 });
  });
});

describe('row reads', () => {
  it('selects rows changed at or after since, ascending', () => {
    const rows: RowTable = new Map();
    mergeScan(
      rows,
      scan(T, [
        [5, 1, 1],
        [3, 1, 1],
      ]),
      'a',
      100,
    );
    mergeScan(rows, scan(T + 1, [[4, 2, 2]], false), 'a', 200);
    expect(rowsChangedSince(rows, 200)).toEqual([[4, 2, 2, T + 1]]);
    expect(rowsChangedSince(rows, 100).map((r) => r[0])).toEqual([3, 4, 5]);
    expect(rowsChangedSince(rows, 201)).toEqual([]);
  });

  it('picks the changed rows for a change file', () => {
    const rows: RowTable = new Map();
    const out = mergeScan(
      rows,
      scan(T, [
        [5, 1, 1],
        [3, 2, 2],
      ]),
      'a',
      1,
    );
    expect(pickRows(rows, out.changed)).toEqual([
      [3, 2, 2, T],
      [5, 1, 1, T],
    ]);
  });

  it('applies a client row when it is new or at least as recent as the stored one', () => {
    const client = new Map<number, AuctionRow>();
    expect(applyClientRow(client, [1, 5, 1, 10])).toBe(true);
    expect(applyClientRow(client, [1, 6, 1, 9])).toBe(false);
    expect(applyClientRow(client, [1, null, 0, 10])).toBe(true);
    expect(client.get(1)).toEqual([1, null, 0, 10]);
  });
});

// ── property tests against a model written from the spec's words ───────────────────────

interface ModelRow {
  price: number | null;
  quantity: number;
  at: number;
}

/** Spec Merge rules 1 and 2, literally, on a plain object; returns the keys it changed. */
function modelMerge(model: Record<string, ModelRow>, s: Scan): Set<number> {
  const changed = new Set<number>();
  const inScan = s.items.map((i) => i[0]);
  if (s.complete && s.items.length >= 1) {
    for (const id of Object.keys(model)) {
      if (model[id].at < s.at && !inScan.includes(Number(id))) {
        model[id] = { price: null, quantity: 0, at: s.at };
        changed.add(Number(id));
      }
    }
  }
  for (const [id, price, quantity] of s.items) {
    const row = model[id];
    if (row === undefined || row.at <= s.at) {
      model[id] = { price, quantity, at: s.at };
      changed.add(id);
    }
  }
  return changed;
}

// Few keys and few distinct times, so late scans, equal-at ties and gone marks happen often.
const scanArb = fc
  .record({
    at: fc.integer({ min: 0, max: 6 }).map((d) => T + d * 1000),
    complete: fc.boolean(),
    items: fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 50 })), {
      selector: (i) => i[0],
      maxLength: 8,
    }),
  })
  .map((s): Scan => ({ ...s, items: s.items.sort((a, b) => a[0] - b[0]) as ScanItem[] }));
const scansArb = fc.array(scanArb, { minLength: 1, maxLength: 25 });

describe('mergeScan properties', () => {
  it('matches the spec model row for row, and reports exactly the rows it changed', () => {
    fc.assert(
      fc.property(scansArb, (scans) => {
        const rows: RowTable = new Map();
        const model: Record<string, ModelRow> = {};
        scans.forEach((s, i) => {
          const listedBefore = new Set([...rows].filter(([, r]) => r.price !== null).map(([k]) => k));
          const out = mergeScan(rows, s, `acct${i % 3}`, i);
          const expectedChanged = modelMerge(model, s);
          expect(out.changed).toEqual([...expectedChanged].sort((a, b) => a - b));
          const marked = out.changed.filter((k) => rows.get(k)?.price === null && !s.items.some((it) => it[0] === k));
          expect(marked).toHaveLength(out.gone);
          // Issue 23, point 10: `delisted` counts the gone marks of keys that had a price before this scan.
          expect(marked.filter((k) => listedBefore.has(k))).toHaveLength(out.delisted);
          const expected = Object.entries(model)
            .map(([id, r]): AuctionRow => [Number(id), r.price, r.quantity, r.at])
            .sort((a, b) => a[0] - b[0]);
          expect(table(rows)).toEqual(expected);
        });
      }),
    );
  });

  it('never moves a row back in time', () => {
    fc.assert(
      fc.property(scansArb, (scans) => {
        const rows: RowTable = new Map();
        scans.forEach((s, i) => {
          const before = new Map([...rows].map(([k, r]) => [k, r.at]));
          mergeScan(rows, s, 'a', i);
          for (const [k, at] of before) expect(rows.get(k)?.at).toBeGreaterThanOrEqual(at);
        });
      }),
    );
  });

  it('lets a client that applies every change file in order hold the server table', () => {
    fc.assert(
      fc.property(scansArb, (scans) => {
        const rows: RowTable = new Map();
        const client = new Map<number, AuctionRow>();
        scans.forEach((s, i) => {
          const out = mergeScan(rows, s, 'a', i);
          for (const row of pickRows(rows, out.changed)) applyClientRow(client, row);
          expect([...client.values()].sort((a, b) => a[0] - b[0])).toEqual(table(rows));
        });
      }),
    );
  });

  it('lets a client catch up from any earlier answer with ?since', () => {
    fc.assert(
      fc.property(scansArb, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 25, maxLength: 25 }), (scans, gaps) => {
        const rows: RowTable = new Map();
        const answers: { now: number; rows: AuctionRow[] }[] = [];
        let now = 0;
        scans.forEach((s, i) => {
          now += gaps[i];
          mergeScan(rows, s, 'a', now);
          // An answer given at `now`, after this merge; later merges may share the same millisecond.
          answers.push({ now, rows: table(rows) });
        });
        for (const answer of answers) {
          const client = new Map(answer.rows.map((r) => [r[0], r]));
          for (const row of rowsChangedSince(rows, answer.now)) applyClientRow(client, row);
          expect([...client.values()].sort((a, b) => a[0] - b[0])).toEqual(table(rows));
        }
      }),
    );
  });

  it('changes no row value when the same scan is merged again', () => {
    fc.assert(
      fc.property(scansArb, scanArb, (scans, again) => {
        const rows: RowTable = new Map();
        for (const s of [...scans, again]) mergeScan(rows, s, 'a', 1);
        const before = table(rows);
        mergeScan(rows, again, 'a', 2);
        expect(table(rows)).toEqual(before);
      }),
    );
  });

  it('takes every scan item when scans arrive in time order, leaving each row at its newest reading', () => {
    fc.assert(
      fc.property(scansArb, (scans) => {
        const ordered = scans.map((s, i) => ({ s, i })).sort((a, b) => a.s.at - b.s.at || a.i - b.i);
        const rows: RowTable = new Map();
        const newest = new Map<number, number>();
        for (const { s } of ordered) {
          const out = mergeScan(rows, s, 'a', 0);
          for (const [key] of s.items) {
            expect(out.changed).toContain(key);
            newest.set(key, s.at);
          }
        }
        // A row is its newest listing, or gone at the time of a later complete scan that lacked it.
        for (const [key, row] of rows) {
          const listed = newest.get(key) as number;
          if (row.price === null) expect(row.at).toBeGreaterThan(listed);
          else expect(row.at).toBe(listed);
        }
      }),
    );
  });
});
