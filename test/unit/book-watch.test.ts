import { describe, expect, it } from 'vitest';
import { blanksMarket, listedKeys, replaysSnapshot, snapshotEcho } from '../../shared/domain/book-watch';
import type { Scan } from '../../shared/domain/derived-scan';
import type { Row, RowTable } from '../../shared/domain/merge';

const HOUR = 3_600_000;
/** The hour of the last snapshot, and a merge 20 minutes into it. */
const CUT = 500_000 * HOUR;
const NOW = CUT + 20 * 60_000;

const row = (price: number | null, at: number, changedAt = at): Row => ({ price, quantity: price === null ? 0 : 3, at, reader: 'r', changedAt });
/** `n` rows read and merged before the cut, prices 1000 + key. */
const table = (n: number): RowTable => new Map(Array.from({ length: n }, (_, k) => [k, row(1000 + k, CUT - HOUR, CUT - HOUR + 5)]));
const scanOf = (items: Array<[number, number]>): Scan => ({ at: NOW - 60_000, complete: true, items: items.map(([k, p]) => [k, p, 1]) });

/** Issue 23, point 10: the two watched risks, as the merge judges them on the rows it already holds. */
describe('a complete book that blanks the market', () => {
  it('counts the listed keys: rows with a price', () => {
    const rows = table(4);
    rows.set(9, row(null, CUT - HOUR));
    expect(listedKeys(rows)).toBe(4);
  });

  it('is more than half of the keys listed before it marked gone; half is not, and an empty market never is', () => {
    expect(blanksMarket(120, 61)).toBe(true);
    expect(blanksMarket(120, 60)).toBe(false);
    expect(blanksMarket(1, 1)).toBe(true);
    expect(blanksMarket(0, 0)).toBe(false);
  });
});

describe('a credited book that replays the last hourly snapshot', () => {
  it('compares the items whose row the snapshot at the start of the hour shows as is, and counts equal lowest buyouts', () => {
    const rows = table(30);
    rows.set(30, row(null, CUT - HOUR)); // gone: not in the snapshot with a price
    rows.set(31, row(5, CUT + 60_000)); // read after the cut
    rows.set(32, row(6, CUT - HOUR, CUT + 60_000)); // a late book merged after the cut
    const items: Array<[number, number]> = Array.from({ length: 30 }, (_, k) => [k, k < 29 ? 1000 + k : 1]);
    expect(snapshotEcho(scanOf([...items, [30, 7], [31, 5], [32, 6], [99, 1]]), rows, NOW)).toEqual({ compared: 30, same: 29 });
  });

  it('is at least 20 compared items with at least 95 % of them equal', () => {
    expect(replaysSnapshot({ compared: 20, same: 19 })).toBe(true);
    expect(replaysSnapshot({ compared: 20, same: 18 })).toBe(false);
    expect(replaysSnapshot({ compared: 19, same: 19 })).toBe(false);
    expect(replaysSnapshot({ compared: 1000, same: 950 })).toBe(true);
    expect(replaysSnapshot({ compared: 1000, same: 949 })).toBe(false);
  });

  it('catches a book made from the snapshot, and not a genuine scan of the same items a little dearer', () => {
    const rows = table(120);
    const replay = scanOf([...rows].map(([k, r]) => [k, r.price as number]));
    const genuine = scanOf([...rows].map(([k, r]) => [k, Math.round((r.price as number) * 1.01)]));
    expect(replaysSnapshot(snapshotEcho(replay, rows, NOW))).toBe(true);
    expect(replaysSnapshot(snapshotEcho(genuine, rows, NOW))).toBe(false);
    // In the next hour, rows merged during this one are what its snapshot shows.
    expect(snapshotEcho(replay, rows, CUT + HOUR + 60_000)).toEqual({ compared: 120, same: 120 });
  });
});
