import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Local, startLocal } from '../support/local';
import { MARKET } from '../support/market-books';

type Handshake = { status: number; body?: Record<string, unknown>; first?: { t?: string } };

/**
 * Integration (issue 11, point 6; spec Authentication rule 3): an upgrade authenticated by the `__session`
 * cookie needs an `Origin` of the deployment (403 `bad_origin`), as session writes do; bearer and `?token=`
 * upgrades are unaffected. Real WebSocket handshakes against the local gateway.
 */
describe('live upgrade: cookie sessions need an allowed Origin', () => {
  let local: Local;
  let token: string;

  /** Opens a socket with these headers; answers the refusal's status and body, or 101 and the first message. */
  const handshake = (headers: Record<string, string>, query = ''): Promise<Handshake> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live?market=${MARKET}${query}`, { headers });
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
      });
      ws.once('message', (d) => {
        ws.close();
        resolve({ status: 101, first: JSON.parse(d.toString()) });
      });
      ws.once('error', reject);
    });

  beforeAll(async () => {
    local = await startLocal();
    const u = await local.user();
    token = await local.session(u.id, { expiresIn: 86_400 });
  });
  afterAll(() => local.close());

  it('refuses a cookie upgrade from a foreign Origin with 403 bad_origin', async () => {
    for (const origin of ['https://evil.example.test', 'http://localhost.evil.test', 'null']) {
      expect(await handshake({ cookie: `__session=${token}`, origin })).toMatchObject({ status: 403, body: { error: 'bad_origin' } });
    }
  });

  it('refuses a cookie upgrade without an Origin with 403 bad_origin', async () => {
    expect(await handshake({ cookie: `__session=${token}` })).toMatchObject({ status: 403, body: { error: 'bad_origin' } });
  });

  it('upgrades a cookie session from an Origin of the deployment', async () => {
    for (const origin of [local.base, 'http://localhost:5173']) {
      expect(await handshake({ cookie: `__session=${token}`, origin })).toMatchObject({ status: 101, first: { t: 'hello' } });
    }
  });

  it('upgrades bearer and ?token= credentials whatever the Origin', async () => {
    const foreign = 'https://evil.example.test';
    expect(await handshake({ authorization: `Bearer ${token}`, origin: foreign })).toMatchObject({ status: 101, first: { t: 'hello' } });
    expect(await handshake({ origin: foreign }, `&token=${encodeURIComponent(token)}`)).toMatchObject({ status: 101, first: { t: 'hello' } });
    // A bearer credential decides even when a cookie is sent too.
    expect(await handshake({ authorization: `Bearer ${token}`, cookie: `__session=${token}`, origin: foreign })).toMatchObject({ status: 101 });
  });

  it('answers 401 before bad_origin and bad_origin before forbidden and bad_market', async () => {
    const foreign = { origin: 'https://evil.example.test' };
    expect(await handshake({ cookie: '__session=garbage', ...foreign })).toMatchObject({ status: 401 });
    const withheld = await local.user({ withhold: ['live'] });
    const withheldToken = await local.session(withheld.id);
    expect(await handshake({ cookie: `__session=${withheldToken}`, ...foreign })).toMatchObject({ status: 403, body: { error: 'bad_origin' } });
    expect(await handshake({ cookie: `__session=${withheldToken}`, origin: local.base })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const bad = await new Promise<Handshake>((resolve) => {
      const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live?market=nowhere`, { headers: { cookie: `__session=${token}`, ...foreign } });
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    });
    expect(bad.status).toBe(403);
  });
});
