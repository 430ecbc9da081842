import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { RESOLUTIONS } from '../../shared/domain/candles';
import type { Row, RowTable } from '../../shared/domain/merge';
import { firstKeptPeriod, periodExpiresAt, pruneRows, retentionCutoffs } from '../../shared/domain/retention';

const NOW = 19_876 * DAY_MS + 5 * HOUR_MS + 7 * MINUTE_MS + 123;

describe('retentionCutoffs', () => {
  it('states every retention rule as a cutoff', () => {
    expect(retentionCutoffs(NOW)).toEqual({
      rowAt: NOW - 30 * DAY_MS,
      day: 19_876 - 90,
      hour: Math.floor(NOW / HOUR_MS) - 336,
      minute: Math.floor(NOW / MINUTE_MS) - 4320,
      bookAt: NOW - 30 * DAY_MS,
      scanLogAt: NOW - 30 * DAY_MS,
      quarantineAt: NOW - 7 * DAY_MS,
    });
  });

  it('gives the first kept period per resolution', () => {
    expect(firstKeptPeriod('d1', NOW)).toBe(19_876 - 90);
    expect(firstKeptPeriod('h1', NOW)).toBe(Math.floor(NOW / HOUR_MS) - 336);
    expect(firstKeptPeriod('m1', NOW)).toBe(Math.floor(NOW / MINUTE_MS) - 4320);
  });
});

describe('pruneRows', () => {
  it('deletes rows whose reading is older than 30 days and keeps the rest', () => {
    const row = (at: number): Row => ({ price: 1, quantity: 1, at, reader: 'a', changedAt: at });
    const rows: RowTable = new Map([
      [3, row(NOW - 30 * DAY_MS - 1)],
      [1, { ...row(NOW - 31 * DAY_MS), price: null }],
      [2, row(NOW - 30 * DAY_MS)],
    ]);
    expect(pruneRows(rows, NOW)).toEqual([1, 3]);
    expect([...rows.keys()]).toEqual([2]);
  });
});

describe('periodExpiresAt', () => {
  it('expires a day page the moment its day falls before today - 90', () => {
    const day = 19_000;
    expect(firstKeptPeriod('d1', periodExpiresAt('d1', day) - 1)).toBe(day);
    expect(firstKeptPeriod('d1', periodExpiresAt('d1', day))).toBe(day + 1);
    expect(periodExpiresAt('m1', 100)).toBe((100 + 4321) * MINUTE_MS);
    expect(periodExpiresAt('h1', 100)).toBe((100 + 337) * HOUR_MS);
  });

  it('is the first moment the period falls before the retention cutoff', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RESOLUTIONS),
        fc.integer({ min: 0, max: 400 * DAY_MS }),
        fc.integer({ min: -200 * DAY_MS, max: 200 * DAY_MS }),
        (res, now, back) => {
          const at = Math.max(0, now + back);
          const period = Math.floor(at / (res === 'm1' ? MINUTE_MS : res === 'h1' ? HOUR_MS : DAY_MS));
          expect(period < firstKeptPeriod(res, now)).toBe(now >= periodExpiresAt(res, period));
        },
      ),
    );
  });
});
