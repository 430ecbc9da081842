import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../shared/clock';
import { type CreditInput, disagrees, judgeUpload, listedInLastDay, type Reading, tooSmall } from '../../shared/domain/credit';
import type { Scan, ScanItem } from '../../shared/domain/derived-scan';

const NOW = 1_717_000_000_000;
const ME = 'me';

const items = (count: number, price = 100, from = 1): ScanItem[] => Array.from({ length: count }, (_, i) => [from + i, price, 1]);
const scan = (list: ScanItem[], complete = true): Scan => ({ at: NOW - 1000, complete, items: list });
/** Rows read by another account at `at` with price `price` for keys 1..count. */
const readings = (count: number, price: number, at = NOW - HOUR_MS, reader = 'other'): Map<number, Reading> =>
  new Map(Array.from({ length: count }, (_, i) => [i + 1, { price, at, reader }]));
const input = (over: Partial<CreditInput> = {}): CreditInput => ({
  scan: scan(items(150)),
  account: ME,
  rows: new Map(),
  listedLastDay: 0,
  lastCreditedAt: null,
  now: NOW,
  ...over,
});

describe('judgeUpload', () => {
  it('credits a complete, large enough upload that agrees', () => {
    expect(judgeUpload(input({ rows: readings(150, 110) }))).toEqual({ merge: true, credited: true });
  });

  it('quarantines an upload that disagrees with other accounts, not merging it', () => {
    expect(judgeUpload(input({ rows: readings(150, 1000) }))).toEqual({ merge: false, credited: false, reason: 'disagrees' });
  });

  it('checks disagrees before incomplete, too_small and too_soon_credit', () => {
    const out = judgeUpload(input({ scan: scan(items(20), false), rows: readings(20, 1000), lastCreditedAt: NOW }));
    expect(out.reason).toBe('disagrees');
  });

  it('merges an incomplete upload without credit, before the size rule', () => {
    expect(judgeUpload(input({ scan: scan(items(5), false) }))).toEqual({ merge: true, credited: false, reason: 'incomplete' });
  });

  it('merges a too small upload without credit, before the credit interval', () => {
    expect(judgeUpload(input({ scan: scan(items(99)), lastCreditedAt: NOW }))).toEqual({ merge: true, credited: false, reason: 'too_small' });
  });

  it('holds too_soon_credit while less than 300000 ms passed', () => {
    expect(judgeUpload(input({ lastCreditedAt: NOW - 299_999 })).reason).toBe('too_soon_credit');
    expect(judgeUpload(input({ lastCreditedAt: NOW - 300_000 })).credited).toBe(true);
  });
});

describe('disagrees', () => {
  it('needs readings for at least 20 of the upload items', () => {
    expect(disagrees(scan(items(19)), readings(19, 1000), ME, NOW)).toBe(false);
    expect(disagrees(scan(items(20)), readings(20, 1000), ME, NOW)).toBe(true);
  });

  it('disagrees only when the lower median exceeds ln 2', () => {
    expect(disagrees(scan(items(20, 100)), readings(20, 200), ME, NOW)).toBe(false);
    expect(disagrees(scan(items(20, 100)), readings(20, 201), ME, NOW)).toBe(true);
    expect(disagrees(scan(items(20, 201)), readings(20, 100), ME, NOW)).toBe(true);
  });

  it('takes the lower of the two middle values for an even count', () => {
    const rows = readings(20, 100);
    for (let k = 1; k <= 10; k++) rows.set(k, { price: 10_000, at: NOW, reader: 'other' });
    expect(disagrees(scan(items(20)), rows, ME, NOW)).toBe(false);
    rows.set(11, { price: 10_000, at: NOW, reader: 'other' });
    expect(disagrees(scan(items(20)), rows, ME, NOW)).toBe(true);
  });

  it('ignores readings by the uploading account, readings without a price and readings older than 2 hours', () => {
    expect(disagrees(scan(items(20)), readings(20, 1000, NOW, ME), ME, NOW)).toBe(false);
    const nulls = new Map([...readings(20, 1000)].map(([k, r]) => [k, { ...r, price: null }]));
    expect(disagrees(scan(items(20)), nulls, ME, NOW)).toBe(false);
    expect(disagrees(scan(items(20)), readings(20, 1000, NOW - 2 * HOUR_MS - 1), ME, NOW)).toBe(false);
    expect(disagrees(scan(items(20)), readings(20, 1000, NOW - 2 * HOUR_MS), ME, NOW)).toBe(true);
  });

  it('only compares items the upload has', () => {
    expect(disagrees(scan(items(20, 100, 101)), readings(20, 1000), ME, NOW)).toBe(false);
  });
});

describe('tooSmall', () => {
  it('counts only the 100 keys when no item was listed in the last day', () => {
    expect(tooSmall(99, 0)).toBe(true);
    expect(tooSmall(100, 0)).toBe(false);
  });

  it('spares an upload under 100 keys that covers a quarter of the listed items', () => {
    expect(tooSmall(50, 200)).toBe(false);
    expect(tooSmall(49, 200)).toBe(true);
    expect(tooSmall(100, 10_000)).toBe(false);
  });

  it('counts listed items whose reading is at most a day old', () => {
    const rows: Reading[] = [
      { price: 5, at: NOW - DAY_MS, reader: 'a' },
      { price: 5, at: NOW - DAY_MS - 1, reader: 'a' },
      { price: null, at: NOW, reader: 'a' },
      { price: 7, at: NOW, reader: 'b' },
    ];
    expect(listedInLastDay(rows, NOW)).toBe(2);
  });
});

describe('credit properties', () => {
  /** Spec credit rules, in order, as a table of (holds, outcome). */
  const model = (i: CreditInput) => {
    const rules: [boolean, string][] = [
      [disagrees(i.scan, i.rows, i.account, i.now), 'disagrees'],
      [!i.scan.complete, 'incomplete'],
      [i.scan.items.length < 100 && (i.listedLastDay === 0 || i.scan.items.length < i.listedLastDay / 4), 'too_small'],
      [i.lastCreditedAt !== null && i.now - i.lastCreditedAt < 300_000, 'too_soon_credit'],
    ];
    return rules.find(([holds]) => holds)?.[1];
  };

  it('reports the first rule that holds, merges all but disagrees and credits only when none holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 150 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 800 }),
        fc.option(fc.integer({ min: 0, max: 600_000 })),
        (count, complete, otherPrice, readCount, listed, ago) => {
          const i = input({
            scan: scan(items(count), complete),
            rows: readings(readCount, otherPrice),
            listedLastDay: listed,
            lastCreditedAt: ago === null ? null : NOW - ago,
          });
          const out = judgeUpload(i);
          const reason = model(i);
          expect(out.reason).toBe(reason);
          expect(out.merge).toBe(reason !== 'disagrees');
          expect(out.credited).toBe(reason === undefined);
        },
      ),
    );
  });
});
