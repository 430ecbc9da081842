import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../shared/errors';
import { endpointAllowed, inQuietHours, parsePrefs, parseSubscription } from '../../shared/push/subscription';
import { browserKeys } from '../support/push-receiver';

const code = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (err) {
    return err instanceof ServiceError ? err.code : 'thrown';
  }
};

describe('push endpoints', () => {
  it('accepts https anywhere, and local http receivers outside production', () => {
    expect(endpointAllowed('https://fcm.googleapis.com/fcm/send/x', true)).toBe(true);
    expect(endpointAllowed('http://127.0.0.1:9000/p', false)).toBe(true);
    expect(endpointAllowed('http://localhost:9000/p', false)).toBe(true);
    expect(endpointAllowed('http://127.0.0.1:9000/p', true)).toBe(false);
    expect(endpointAllowed('http://example.com/p', false)).toBe(false);
    expect(endpointAllowed('ftp://example.com/p', false)).toBe(false);
    expect(endpointAllowed('https://user:pw@example.com/p', false)).toBe(false);
    expect(endpointAllowed('not a url', false)).toBe(false);
  });
});

describe('PushSubscriptionJSON', () => {
  const keys = browserKeys().keys;

  it('keeps the endpoint and keys', () => {
    expect(parseSubscription({ endpoint: 'https://push.example.com/a', keys, expirationTime: null }, true)).toEqual({ endpoint: 'https://push.example.com/a', keys });
  });

  it.each([
    ['no endpoint', { keys }],
    ['an http endpoint in production', { endpoint: 'http://127.0.0.1:1/a', keys }],
    ['no keys', { endpoint: 'https://p.example/a' }],
    ['a short p256dh', { endpoint: 'https://p.example/a', keys: { ...keys, p256dh: keys.p256dh.slice(0, 40) } }],
    ['a 15-byte auth', { endpoint: 'https://p.example/a', keys: { ...keys, auth: Buffer.alloc(15).toString('base64url') } }],
    ['a non-base64url key', { endpoint: 'https://p.example/a', keys: { ...keys, auth: 'a b' } }],
    ['an overlong endpoint', { endpoint: `https://p.example/${'a'.repeat(2048)}`, keys }],
  ])('answers bad_request for %s', (_, raw) => {
    expect(code(() => parseSubscription(raw, true))).toBe('bad_request');
  });
});

describe('PushPrefs', () => {
  it('keeps market, quiet hours and other fields as given', () => {
    const prefs = { market: false, quietHours: { start: '22:00', end: '07:30', tz: 'Europe/Berlin' }, sound: 'ding' };
    expect(parsePrefs(prefs)).toEqual(prefs);
    expect(parsePrefs(undefined)).toEqual({});
    expect(parsePrefs({ quietHours: null })).toEqual({ quietHours: null });
  });

  it.each([
    [[]],
    [{ market: 'yes' }],
    [{ quietHours: { start: '24:00', end: '07:00', tz: 'UTC' } }],
    [{ quietHours: { start: '7:00', end: '08:00', tz: 'UTC' } }],
    [{ quietHours: { start: '22:00', end: '07:00', tz: 'Mars/Olympus' } }],
    [{ quietHours: { start: '22:00', end: '07:00' } }],
    [{ big: 'x'.repeat(5000) }],
  ])('answers bad_request for %j', (raw) => {
    expect(code(() => parsePrefs(raw))).toBe('bad_request');
  });
});

describe('quiet hours', () => {
  const at = (iso: string) => Date.parse(iso);
  const overnight = { quietHours: { start: '22:00', end: '07:00', tz: 'America/New_York' } };

  it('hold pushes from start (inclusive) to end (exclusive) in the given zone, across midnight', () => {
    // 22:00 in New York on 2026-11-02 (EST, UTC-5) is 03:00 UTC the next day.
    expect(inQuietHours(overnight, at('2026-11-03T02:59:00Z'))).toBe(false);
    expect(inQuietHours(overnight, at('2026-11-03T03:00:00Z'))).toBe(true);
    expect(inQuietHours(overnight, at('2026-11-03T09:00:00Z'))).toBe(true);
    expect(inQuietHours(overnight, at('2026-11-03T11:59:00Z'))).toBe(true);
    expect(inQuietHours(overnight, at('2026-11-03T12:00:00Z'))).toBe(false);
  });

  it('hold pushes inside a same-day window only', () => {
    const day = { quietHours: { start: '09:00', end: '17:00', tz: 'UTC' } };
    expect(inQuietHours(day, at('2026-11-02T08:59:00Z'))).toBe(false);
    expect(inQuietHours(day, at('2026-11-02T09:00:00Z'))).toBe(true);
    expect(inQuietHours(day, at('2026-11-02T17:00:00Z'))).toBe(false);
  });

  it('never hold pushes without quiet hours or with an empty window', () => {
    expect(inQuietHours({}, at('2026-11-02T03:00:00Z'))).toBe(false);
    expect(inQuietHours({ quietHours: { start: '03:00', end: '03:00', tz: 'UTC' } }, at('2026-11-02T03:00:00Z'))).toBe(false);
  });
});
