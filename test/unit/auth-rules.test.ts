import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PairBody } from '../../shared/api/account.schemas';
import { Memo } from '../../shared/auth/memo';
import { hashSecret, newCode, newDeviceToken } from '../../shared/auth/tokens';
import { claimDue, contributionsFrom, contributorUntil, windowEnd } from '../../shared/domain/contributor';
import { confirmOutcome, isDeviceTokenShape, lastSeenDue, normalizePairCode, PAIR_CODE_ALPHABET, type Pairing, pollOutcome } from '../../shared/domain/pairing';

/** The device name POST /devices/pair keeps (shared/api/account.schemas.ts), or null for a 400. */
const deviceName = (name: unknown): string | null => {
  const r = PairBody.safeParse({ name });
  return r.success ? r.data.name : null;
};

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 2);
const pairing = (over: Partial<Pairing> = {}): Pairing => ({ pairId: 'p', name: 'n', created: NOW, expires: NOW + 600_000, state: 'waiting', ...over });

describe('pairing codes and device tokens', () => {
  it('uses A-Z2-9 without I, O, 0 and 1', () => {
    expect(PAIR_CODE_ALPHABET).toHaveLength(32);
    for (const ch of 'IO01') expect(PAIR_CODE_ALPHABET).not.toContain(ch);
  });

  it('draws 8-character codes from the alphabet', () => {
    for (let i = 0; i < 200; i++) expect(newCode()).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
  });

  it('accepts a code with spaces, dashes and lower case', () => {
    expect(normalizePairCode('abcd-ef23')).toBe('ABCDEF23');
    expect(normalizePairCode(' AB CD EF 23 ')).toBe('ABCDEF23');
  });

  it('refuses codes of another length or alphabet', () => {
    for (const c of ['ABCDEF2', 'ABCDEF234', 'ABCDEFG0', 'ABCDEFGI', 'ABCDEF_3', 42, null, undefined]) expect(normalizePairCode(c)).toBeNull();
  });

  it('makes device tokens of svc_dev_ and 43 base64url characters', () => {
    const t = newDeviceToken();
    expect(t).toMatch(/^svc_dev_[A-Za-z0-9_-]{43}$/);
    expect(isDeviceTokenShape(t)).toBe(true);
    expect(isDeviceTokenShape(`${t}x`)).toBe(false);
    expect(isDeviceTokenShape('svc_dev_short')).toBe(false);
    expect(newDeviceToken()).not.toBe(t);
  });

  it('hashes secrets with SHA-256', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('defaults and bounds device names', () => {
    expect(deviceName(undefined)).toBe('Desktop app');
    expect(deviceName('  Laptop  ')).toBe('Laptop');
    expect(deviceName('x'.repeat(101))).toBeNull();
    expect(deviceName(5)).toBeNull();
  });
});

describe('pairing state table', () => {
  it('polls waiting, collects once bound, and is gone when paired, expired or unknown', () => {
    expect(pollOutcome(pairing(), NOW)).toBe('waiting');
    expect(pollOutcome(pairing({ state: 'bound', userId: 'u' }), NOW)).toBe('collect');
    expect(pollOutcome(pairing({ state: 'paired', userId: 'u' }), NOW)).toBe('gone');
    expect(pollOutcome(pairing(), NOW + 600_000)).toBe('gone');
    expect(pollOutcome(pairing({ state: 'bound', userId: 'u' }), NOW + 600_000)).toBe('gone');
    expect(pollOutcome(null, NOW)).toBe('gone');
  });

  it("binds a waiting code, answers the same device again, and hides another account's code", () => {
    expect(confirmOutcome(pairing(), 'u', NOW)).toBe('bind');
    expect(confirmOutcome(pairing({ state: 'bound', userId: 'u', deviceId: 'd' }), 'u', NOW)).toBe('same');
    expect(confirmOutcome(pairing({ state: 'paired', userId: 'u', deviceId: 'd' }), 'u', NOW)).toBe('same');
    expect(confirmOutcome(pairing({ state: 'bound', userId: 'v', deviceId: 'd' }), 'u', NOW)).toBe('unknown');
    expect(confirmOutcome(pairing({ state: 'bound', userId: 'v', deviceId: 'd' }), 'u', NOW + DAY)).toBe('unknown');
    expect(confirmOutcome(null, 'u', NOW)).toBe('unknown');
  });

  it('answers expired from 10 minutes on', () => {
    expect(confirmOutcome(pairing(), 'u', NOW + 599_999)).toBe('bind');
    expect(confirmOutcome(pairing(), 'u', NOW + 600_000)).toBe('expired');
    expect(confirmOutcome(pairing({ state: 'bound', userId: 'u', deviceId: 'd' }), 'u', NOW + 600_000)).toBe('expired');
  });

  it('refreshes lastSeen at most every 10 minutes', () => {
    expect(lastSeenDue(undefined, NOW)).toBe(true);
    expect(lastSeenDue(NOW - 599_999, NOW)).toBe(false);
    expect(lastSeenDue(NOW - 600_000, NOW)).toBe(true);
  });
});

describe('contributor window', () => {
  it('ends at max(current end, now + 14 days)', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 2 * NOW })), fc.integer({ min: 0, max: NOW }), (current, now) => {
        const end = windowEnd(current, now);
        expect(end).toBe(Math.max(current ?? 0, now + 14 * DAY));
      }),
    );
  });

  it('writes the claim on the first credit or when the last write is an hour old', () => {
    expect(claimDue(null, NOW)).toBe(true);
    expect(claimDue(NOW - 3_599_999, NOW)).toBe(false);
    expect(claimDue(NOW - 3_600_000, NOW)).toBe(true);
  });

  it('shows the stored window over the claim', () => {
    expect(contributorUntil(5, 9)).toBe(5);
    expect(contributorUntil(null, 9)).toBe(9);
    expect(contributorUntil(null, null)).toBeNull();
  });

  it('defaults from to 30 days back, clamps it there, and refuses malformed values', () => {
    expect(contributionsFrom(undefined, NOW)).toBe(NOW - 30 * DAY);
    expect(contributionsFrom('0', NOW)).toBe(NOW - 30 * DAY);
    expect(contributionsFrom(String(NOW - DAY), NOW)).toBe(NOW - DAY);
    expect(contributionsFrom(String(NOW + DAY), NOW)).toBe(NOW + DAY);
    for (const bad of ['-1', '1.5', 'abc', '1e12', ' 12', '99999999999999999']) expect(contributionsFrom(bad, NOW)).toBeNull();
  });
});

describe('memo', () => {
  it('forgets entries at their expiry on the given clock and evicts the oldest beyond its size', () => {
    const m = new Memo<number>(2);
    m.set('a', 1, 100);
    expect(m.get('a', 99)).toBe(1);
    expect(m.get('a', 100)).toBeUndefined();
    m.set('a', 1, 1000);
    m.set('b', 2, 1000);
    m.set('c', 3, 1000);
    expect(m.get('a', 0)).toBeUndefined();
    expect(m.get('c', 0)).toBe(3);
  });
});
