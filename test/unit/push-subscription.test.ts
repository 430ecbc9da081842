import { describe, expect, it } from 'vitest';
import { PushPrefs, subscriptionSchema } from '../../shared/api/push.schemas';
import { parseAs } from '../../shared/api/zod-parse';
import { type EndpointRule, endpointAllowed, inQuietHours, PUSH_SERVICE_HOSTS } from '../../shared/domain/push-subscription';
import { DomainError } from '../../shared/errors';
import { browserKeys } from '../support/push-receiver';

/** The route's parses (shared/api/push.schemas.ts): absent or null prefs are none. */
const parseSubscription = (raw: unknown, rule: EndpointRule) => parseAs(subscriptionSchema(rule), raw, 'bad_request');
const parsePrefs = (raw: unknown) => (raw === undefined || raw === null ? {} : parseAs(PushPrefs, raw, 'bad_request'));

const code = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (err) {
    return err instanceof DomainError ? err.code : 'thrown';
  }
};

/** The rule of every AWS stage (production, dev, previews): the browsers' push services, no loopback. */
const AWS_RULE = { hosts: PUSH_SERVICE_HOSTS, loopback: false };
/** The local runtime's rule: the same hosts, plus loopback http receivers. */
const LOCAL_RULE = { hosts: PUSH_SERVICE_HOSTS, loopback: true };

describe('push endpoints', () => {
  it("accepts https endpoints of the browsers' push services in every stage", () => {
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://fcm.googleapis.com/wp/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://web.push.apple.com/QGuQyavXutnMH',
      'https://api.push.apple.com/3/device/x',
      'https://wns2-bl2p.notify.windows.com/w/?token=BQYAAA',
      'https://FCM.GoogleAPIs.com/fcm/send/x',
      'https://fcm.googleapis.com:443/fcm/send/x',
    ]) {
      expect(endpointAllowed(endpoint, AWS_RULE), endpoint).toBe(true);
      expect(endpointAllowed(endpoint, LOCAL_RULE), endpoint).toBe(true);
    }
  });

  it('refuses any other host, IP literals, other ports, credentials and other schemes in every stage', () => {
    for (const endpoint of [
      'https://push.example.com/a',
      'https://evil.example/fcm.googleapis.com/x',
      'https://fcm.googleapis.com.evil.example/x',
      'https://notify.windows.com/x',
      'https://a.b.notify.windows.com/x',
      'https://evil_host.notify.windows.com/x',
      'https://fcm.googleapis.com:8443/fcm/send/x',
      'https://169.254.169.254/latest/meta-data',
      'https://0x7f.1/x',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://user:pw@fcm.googleapis.com/x',
      'http://fcm.googleapis.com/fcm/send/x',
      'ftp://fcm.googleapis.com/x',
      'not a url',
    ]) {
      expect(endpointAllowed(endpoint, AWS_RULE), endpoint).toBe(false);
      expect(endpointAllowed(endpoint, LOCAL_RULE), endpoint).toBe(false);
    }
  });

  it('accepts http://127.0.0.1 and http://localhost receivers only in the local runtime', () => {
    for (const endpoint of ['http://127.0.0.1:9000/p', 'http://localhost:9000/p', 'http://127.0.0.1/p']) {
      expect(endpointAllowed(endpoint, LOCAL_RULE), endpoint).toBe(true);
      expect(endpointAllowed(endpoint, AWS_RULE), endpoint).toBe(false);
    }
    expect(endpointAllowed('http://10.0.0.1:9000/p', LOCAL_RULE)).toBe(false);
    expect(endpointAllowed('http://example.com/p', LOCAL_RULE)).toBe(false);
    expect(endpointAllowed('https://127.0.0.1/p', LOCAL_RULE)).toBe(false);
  });

  it('follows a configured host list', () => {
    const rule = { hosts: ['push.example.com', '*.push.example.net'], loopback: false };
    expect(endpointAllowed('https://push.example.com/a', rule)).toBe(true);
    expect(endpointAllowed('https://eu.push.example.net/a', rule)).toBe(true);
    expect(endpointAllowed('https://fcm.googleapis.com/a', rule)).toBe(false);
  });
});

describe('PushSubscriptionJSON', () => {
  const keys = browserKeys().keys;

  it('keeps the endpoint and keys', () => {
    expect(parseSubscription({ endpoint: 'https://fcm.googleapis.com/fcm/send/a', keys, expirationTime: null }, AWS_RULE)).toEqual({
      endpoint: 'https://fcm.googleapis.com/fcm/send/a',
      keys,
    });
  });

  it.each([
    ['no endpoint', { keys }],
    ['a loopback http endpoint in AWS', { endpoint: 'http://127.0.0.1:1/a', keys }],
    ['an endpoint on an unknown host', { endpoint: 'https://push.example.com/a', keys }],
    ['no keys', { endpoint: 'https://fcm.googleapis.com/a' }],
    ['a short p256dh', { endpoint: 'https://fcm.googleapis.com/a', keys: { ...keys, p256dh: keys.p256dh.slice(0, 40) } }],
    ['a 15-byte auth', { endpoint: 'https://fcm.googleapis.com/a', keys: { ...keys, auth: Buffer.alloc(15).toString('base64url') } }],
    ['a non-base64url key', { endpoint: 'https://fcm.googleapis.com/a', keys: { ...keys, auth: 'a b' } }],
    ['an overlong endpoint', { endpoint: `https://fcm.googleapis.com/${'a'.repeat(2048)}`, keys }],
  ])('answers bad_request for %s', (_, raw) => {
    expect(code(() => parseSubscription(raw, AWS_RULE))).toBe('bad_request');
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
