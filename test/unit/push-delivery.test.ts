import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import type { PushPayload } from '../../shared/domain/push-message';
import { deliver, pushRequest } from '../../shared/push/deliver';
import { browserKeys, type PushReceiver, startPushReceiver } from '../support/push-receiver';

const vapid = { ...webpush.generateVAPIDKeys(), subject: 'mailto:ops@example.com' };
const payload: PushPayload = {
  v: 1,
  kind: 'market',
  title: 'Linen Cloth: 1g',
  body: 'At or below your 2g threshold',
  tag: 'ahf-market',
  url: '/item/2589?m=forever.normal.alliance.us',
  ts: 123,
};

/** The VAPID JWT's parts, with its ES256 signature checked against the public key `k`. */
function readVapid(authorization: string): { header: Record<string, unknown>; claims: Record<string, unknown>; k: string; valid: boolean } {
  const m = authorization.match(/^vapid t=([^,]+), k=(.+)$/);
  if (!m) throw new Error(`not a vapid header: ${authorization}`);
  const [h, c, s] = m[1].split('.');
  const raw = Buffer.from(m[2], 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const valid = verify('sha256', Buffer.from(`${h}.${c}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), claims: JSON.parse(Buffer.from(c, 'base64url').toString()), k: m[2], valid };
}

describe('Web Push delivery', () => {
  let rx: PushReceiver;
  beforeAll(async () => {
    rx = await startPushReceiver();
  });
  afterAll(async () => {
    await rx.close();
  });

  it('POSTs an aes128gcm body with TTL 3600, Urgency normal and a VAPID authorization the browser can decrypt', async () => {
    const browser = browserKeys();
    const sub = { endpoint: `${rx.base}/push/abc`, keys: browser.keys };
    const before = Math.floor(Date.now() / 1000);
    const out = await deliver(sub, payload, vapid);
    expect(out).toEqual({ kind: 'sent', status: 201 });
    const req = rx.received.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/push/abc');
    expect(req.headers.ttl).toBe('3600');
    expect(req.headers.urgency).toBe('normal');
    expect(req.headers['content-encoding']).toBe('aes128gcm');
    const jwt = readVapid(String(req.headers.authorization));
    expect(jwt.valid).toBe(true);
    expect(jwt.k).toBe(vapid.publicKey);
    expect(jwt.header).toMatchObject({ typ: 'JWT', alg: 'ES256' });
    expect(jwt.claims.aud).toBe(rx.base);
    expect(jwt.claims.sub).toBe(vapid.subject);
    // Wall clock + 12 h: push services check expiry against real time.
    expect(Number(jwt.claims.exp)).toBeGreaterThanOrEqual(before + 12 * 3600 - 5);
    expect(Number(jwt.claims.exp)).toBeLessThanOrEqual(before + 12 * 3600 + 5);
    expect(JSON.parse(browser.decrypt(req.body).toString('utf8'))).toEqual(payload);
  });

  it('reports 404 and 410 as gone and other failures as failed, never throwing', async () => {
    const sub = { endpoint: `${rx.base}/gone`, keys: browserKeys().keys };
    rx.statusFor.set('/gone', 410);
    expect((await deliver(sub, payload, vapid)).kind).toBe('gone');
    rx.statusFor.set('/gone', 404);
    expect((await deliver(sub, payload, vapid)).kind).toBe('gone');
    rx.statusFor.set('/gone', 500);
    expect(await deliver(sub, payload, vapid)).toEqual({ kind: 'failed', reason: 'status 500' });
    expect((await deliver({ ...sub, endpoint: 'http://127.0.0.1:1/none' }, payload, vapid)).kind).toBe('failed');
  });

  it('builds the request without a Content-Length of its own (fetch sets it)', () => {
    const r = pushRequest({ endpoint: 'https://push.example.com/x', keys: browserKeys().keys }, payload, vapid);
    expect(Object.keys(r.headers).map((k) => k.toLowerCase())).not.toContain('content-length');
    expect(r.url).toBe('https://push.example.com/x');
  });
});
