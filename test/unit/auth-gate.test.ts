import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalIdentity } from '../../lib/local/identity/identity';
import { requireSession } from '../../shared/auth/gate';
import { ManualClock } from '../../shared/clock';
import { DomainError } from '../../shared/errors';
import { admit, authenticate } from '../../shared/http/admit';
import type { Access } from '../../shared/http/handler';
import type { ApiRequest } from '../../shared/http/types';
import type { Services } from '../../shared/services';

/** Unit: the gate's decisions for anonymous and session callers (no storage: paths outside /api/v1/ are not counted). */
const clock = new ManualClock(Date.UTC(2026, 10, 2, 0, 0, 1));
let server: Server;
let idp: LocalIdentity;
let base: string;
let svc: Services;

const post = async (path: string, body: unknown) =>
  (await (await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, string>;

function request(over: Partial<ApiRequest> = {}): ApiRequest {
  return {
    method: 'GET',
    path: '/item/1',
    routeKey: '',
    params: {},
    query: {},
    headers: {},
    cookies: {},
    body: Buffer.alloc(0),
    ip: '192.0.2.1',
    event: {} as ApiRequest['event'],
    ...over,
  };
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return `${err.code}${err.extra.feature ? `:${err.extra.feature}` : ''}`;
    throw err;
  }
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (!(await idp.handle(req, res, new URL(req.url ?? '/', base), Buffer.concat(chunks)))) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  idp = new LocalIdentity({ dataDir: ':memory:', issuer: `${base}/_local/idp`, clock, secretKey: 'sk' });
  await idp.init();
  const config = {
    env: 'dev',
    publicBase: `${base}/`,
    origins: [],
    idp: { issuer: `${base}/_local/idp`, jwksUrl: `${base}/_local/idp/.well-known/jwks.json`, apiUrl: `${base}/_local/idp`, secretKey: 'sk' },
  };
  svc = { config, clock, log: () => undefined } as unknown as Services;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const PUBLIC: Access = { kind: 'public' };
const SIGNED_IN: Access = { kind: 'signedIn' };
const ALERTS: Access = { kind: 'feature', feature: 'alerts' };
const ALERTS_READS_FREE: Access = { kind: 'feature', feature: 'alerts', signedInOnly: true };

describe('gate', () => {
  it('admits anonymous callers to public routes only', async () => {
    expect(await code(admit(request(), PUBLIC, svc))).toBe('ok');
    expect(await code(admit(request(), SIGNED_IN, svc))).toBe('unauthenticated');
    expect(await code(admit(request(), ALERTS, svc))).toBe('unauthenticated');
  });

  it('refuses a bad Authorization credential even on a public route', async () => {
    expect(await code(admit(request({ headers: { authorization: 'Bearer nope' } }), PUBLIC, svc))).toBe('unauthenticated');
  });

  it('answers 403 forbidden with the feature a session lacks; signedInOnly routes let reads through', async () => {
    const u = await post('/_local/users', { withhold: ['alerts'] });
    const headers = { authorization: `Bearer ${(await post('/_local/sessions', { userId: u.id })).token}`, origin: base };
    expect(await code(admit(request({ headers }), ALERTS, svc))).toBe('forbidden:alerts');
    expect(await code(admit(request({ headers }), ALERTS_READS_FREE, svc))).toBe('ok');
    expect(await code(admit(request({ headers, method: 'PUT' }), ALERTS_READS_FREE, svc))).toBe('forbidden:alerts');
    const holder = await post('/_local/users', {});
    const ok = { authorization: `Bearer ${(await post('/_local/sessions', { userId: holder.id })).token}`, origin: base };
    expect(await code(admit(request({ headers: ok, method: 'POST' }), ALERTS, svc))).toBe('ok');
  });

  it("checks a session write's Origin before its features", async () => {
    const u = await post('/_local/users', { withhold: ['alerts'] });
    const token = (await post('/_local/sessions', { userId: u.id })).token;
    expect(await code(admit(request({ method: 'POST', headers: { authorization: `Bearer ${token}` } }), ALERTS, svc))).toBe('bad_origin');
    expect(await code(admit(request({ method: 'DELETE', cookies: { __session: token }, headers: { origin: 'https://evil.test' } }), PUBLIC, svc))).toBe(
      'bad_origin',
    );
    expect(await code(admit(request({ method: 'HEAD', cookies: { __session: token } }), PUBLIC, svc))).toBe('ok');
  });

  it('authenticates a live socket by ?token= only when asked to', async () => {
    const u = await post('/_local/users', {});
    const token = (await post('/_local/sessions', { userId: u.id })).token;
    expect((await authenticate(request({ query: { token } }), svc, { queryToken: true })).userId).toBe(u.id);
    expect((await authenticate(request({ query: { token } }), svc)).kind).toBe('anon');
    expect(await code(authenticate(request({ query: { token: 'bad' } }), svc, { queryToken: true }))).toBe('unauthenticated');
    const p = await authenticate(request({ query: { token } }), svc, { queryToken: true });
    expect(p.validUntil).toBe(Math.floor(clock.now() / 1000) * 1000 + 3_600_000);
    expect(() => requireSession(p)).not.toThrow();
  });
});
