import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { periodsToSeal, SEAL_GRACE_MS } from '../../shared/files/seal-plan';

const T = Date.UTC(2026, 10, 2);
const BLOCK = 10 * MINUTE_MS;

describe('seal plan: which periods a seal run writes', () => {
  it('writes nothing before the first merge', () => {
    expect(periodsToSeal('m1', null, null, T + DAY_MS)).toBeNull();
  });

  it('writes a period once it is over plus the 5-minute grace, from the first merge period on', () => {
    const first = T + 3 * MINUTE_MS;
    expect(periodsToSeal('m1', null, first, T + BLOCK + SEAL_GRACE_MS - 1)).toBeNull();
    expect(periodsToSeal('m1', null, first, T + BLOCK + SEAL_GRACE_MS)).toEqual({ first: T / BLOCK, last: T / BLOCK });
    expect(periodsToSeal('h1', null, first, T + HOUR_MS + SEAL_GRACE_MS)).toEqual({ first: T / HOUR_MS, last: T / HOUR_MS });
    expect(periodsToSeal('d1', null, first, T + DAY_MS + SEAL_GRACE_MS - 1)).toBeNull();
    expect(periodsToSeal('d1', null, first, T + DAY_MS + SEAL_GRACE_MS)).toEqual({ first: T / DAY_MS, last: T / DAY_MS });
  });

  it('continues after the sealed period and catches up every missed one, empty or not', () => {
    const sealed = T / BLOCK + 2;
    expect(periodsToSeal('m1', sealed, T, T + 10 * BLOCK + SEAL_GRACE_MS)).toEqual({ first: sealed + 1, last: T / BLOCK + 9 });
    expect(periodsToSeal('m1', T / BLOCK + 9, T, T + 10 * BLOCK + SEAL_GRACE_MS)).toBeNull();
  });

  it('skips periods whose files retention would delete at once (after a long outage)', () => {
    const now = T + 20 * DAY_MS + SEAL_GRACE_MS;
    // The first block whose end is at most 3 days old.
    expect(periodsToSeal('m1', null, T, now)).toEqual({ first: (T + 17 * DAY_MS) / BLOCK, last: (T + 20 * DAY_MS) / BLOCK - 1 });
    expect(periodsToSeal('h1', null, T, now)?.first).toBe((T + 5 * DAY_MS) / HOUR_MS);
    expect(periodsToSeal('d1', null, T, now)).toEqual({ first: T / DAY_MS + 18, last: T / DAY_MS + 19 });
  });
});
