import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import type { DomainError } from '../../shared/errors';
import { acceptedOriginValues, fromEdge, ORIGIN_SECRET_REFRESH_MS, originSecretValues, resetOriginSecretCache } from '../../shared/http/edge';
import { callerAddressKey, toApiRequest } from '../../shared/http/request';
import type { HttpEvent } from '../../shared/http/types';
import { connectRequest } from '../../shared/live/ws-events';
import type { Services } from '../../shared/services';

const CURRENT = 'c'.repeat(40);
const PREVIOUS = 'p'.repeat(40);

describe('origin-verify secret', () => {
  it('accepts the current and the previous value of {current, previous}', () => {
    expect(originSecretValues(JSON.stringify({ current: CURRENT, previous: PREVIOUS }))).toEqual([CURRENT, PREVIOUS]);
    expect(originSecretValues(JSON.stringify({ current: CURRENT }))).toEqual([CURRENT]);
  });

  it('accepts nothing from a malformed secret or values shorter than 32 characters', () => {
    for (const raw of [undefined, '', 'not json', '"a string"', 'null', JSON.stringify({ current: 'short' }), JSON.stringify({ current: 42 })]) {
      expect(originSecretValues(raw), String(raw)).toEqual([]);
    }
  });

  it('lets a request through only with an accepted value in x-origin-verify (any header case)', () => {
    const accepted = [CURRENT, PREVIOUS];
    expect(fromEdge({ 'x-origin-verify': CURRENT }, accepted)).toBe(true);
    expect(fromEdge({ 'X-Origin-Verify': PREVIOUS }, accepted)).toBe(true);
    expect(fromEdge({ 'x-origin-verify': `${CURRENT}x` }, accepted)).toBe(false);
    expect(fromEdge({ 'x-origin-verify': '' }, accepted)).toBe(false);
    expect(fromEdge({}, accepted)).toBe(false);
    expect(fromEdge(null, accepted)).toBe(false);
    expect(fromEdge({ 'x-origin-verify': CURRENT }, [])).toBe(false);
    expect(fromEdge({ 'x-origin-verify': 'short' }, ['short'])).toBe(false);
  });
});

describe('origin secret in AWS (re-read so rotation reaches warm functions)', () => {
  const clock = new ManualClock(1_000_000);
  const svc = { config: { secretArns: { origin: 'arn:secret' }, originVerify: [] }, clock, log: () => undefined } as unknown as Services;
  let reads = 0;
  let value: string | Error = JSON.stringify({ current: CURRENT });
  const read = async () => {
    reads++;
    if (value instanceof Error) throw value;
    return value;
  };

  beforeEach(() => {
    resetOriginSecretCache();
    reads = 0;
    value = JSON.stringify({ current: CURRENT });
  });

  it('reads the secret once per five minutes and follows a rotation after that', async () => {
    expect(await acceptedOriginValues(svc, read)).toEqual([CURRENT]);
    value = JSON.stringify({ current: 'n'.repeat(40), previous: CURRENT });
    clock.advance(ORIGIN_SECRET_REFRESH_MS - 1);
    expect(await acceptedOriginValues(svc, read)).toEqual([CURRENT]);
    expect(reads).toBe(1);
    clock.advance(1);
    expect(await acceptedOriginValues(svc, read)).toEqual(['n'.repeat(40), CURRENT]);
    expect(reads).toBe(2);
  });

  it('keeps the last values when a re-read fails, and refuses (503) when it never read any', async () => {
    value = new Error('throttled');
    await expect(acceptedOriginValues(svc, read)).rejects.toMatchObject({ code: 'unavailable' } satisfies Partial<DomainError>);
    value = JSON.stringify({ current: CURRENT });
    expect(await acceptedOriginValues(svc, read)).toEqual([CURRENT]);
    value = new Error('throttled');
    clock.advance(ORIGIN_SECRET_REFRESH_MS);
    expect(await acceptedOriginValues(svc, read)).toEqual([CURRENT]);
  });

  it('uses the configured values where no secret ARN is set (the local runtime)', async () => {
    const local = { ...svc, config: { secretArns: {}, originVerify: [CURRENT] } } as unknown as Services;
    expect(await acceptedOriginValues(local, read)).toEqual([CURRENT]);
    expect(reads).toBe(0);
  });
});

describe('caller address key', () => {
  const forged = { 'cloudfront-viewer-address': '198.51.100.9:443' };

  it('trusts CloudFront-Viewer-Address only on a request verified to come from the edge', () => {
    expect(callerAddressKey(forged, '192.0.2.1', true)).toBe('198.51.100.9');
    expect(callerAddressKey(forged, '192.0.2.1', false)).toBe('192.0.2.1');
    expect(callerAddressKey({}, '192.0.2.1', true)).toBe('192.0.2.1');
  });

  it('keys IPv6 viewers by their /64 on HTTP requests and socket upgrades', () => {
    const event = {
      rawPath: '/api/v1/me',
      routeKey: 'GET /api/v1/me',
      headers: { 'cloudfront-viewer-address': '2001:db8:5:6:7::1:51234' },
      requestContext: { http: { method: 'GET', sourceIp: '203.0.113.1' } },
    } as unknown as HttpEvent;
    expect(toApiRequest(event, {}, true).ip).toBe('2001:db8:5:6::/64');
    expect(toApiRequest(event).ip).toBe('203.0.113.1');
    const upgrade = { headers: event.headers, requestContext: { connectionId: 'c', identity: { sourceIp: '2001:db8:9::1' } } };
    expect(connectRequest(upgrade, true).ip).toBe('2001:db8:5:6::/64');
    expect(connectRequest(upgrade).ip).toBe('2001:db8:9::/64');
  });
});
