import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalIdentity } from '../../lib/local/identity/identity';
import { ManualClock } from '../../shared/clock';
import { type Local, startLocal } from '../support/local';

/** A second identity provider on its own port (one runtime per process: services are process-wide). */
async function otherProvider(issuer?: string) {
  let idp!: LocalIdentity;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (!(await idp.handle(req, res, new URL(req.url ?? '/', 'http://127.0.0.1'), Buffer.concat(chunks)))) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  idp = new LocalIdentity({ dataDir: ':memory:', issuer: issuer ?? `${base}/_local/idp`, clock: new ManualClock(Date.now()), secretKey: 'sk_other' });
  await idp.init();
  const post = async (path: string, body: unknown) =>
    (await (await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, string>;
  return { post, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Integration: the spec's Authentication rules, row by row, against the local runtime. */
describe('authentication', () => {
  let local: Local;
  let ipSeq = 0;
  /** A fresh viewer address per request keeps the anonymous rate limit out of these tests. */
  const ip = () => `198.51.100.${++ipSeq % 250}`;
  const me = (headers: Record<string, string> = {}) => local.api('GET', '/api/v1/me', { headers: { 'x-forwarded-for': ip(), ...headers } });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const cookie = (token: string) => ({ cookie: `__session=${token}` });

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  describe('anonymous callers', () => {
    it('are role anon without a credential', async () => {
      const res = await me();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ user: null, roles: ['anon'], features: ['candles.daily', 'candles.hourly'] });
    });

    it('get 401 unauthenticated on signed-in routes', async () => {
      const res = await local.api('GET', '/api/v1/devices', { headers: { 'x-forwarded-for': ip() } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthenticated' });
    });
  });

  describe('website sessions', () => {
    it('are the user with roles from the token claims, by Authorization or by cookie', async () => {
      const u = await local.user({ plan: 'premium' });
      const token = await local.session(u.id);
      for (const headers of [bearer(token), cookie(token)]) {
        const res = await me(headers);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ user: { id: u.id, email: u.email }, roles: ['free', 'premium'] });
      }
    });

    it('let Authorization decide when a cookie is sent too', async () => {
      const a = await local.user();
      const b = await local.user();
      const [ta, tb] = [await local.session(a.id), await local.session(b.id)];
      expect((await me({ ...bearer(ta), ...cookie(tb) })).body.user.id).toBe(a.id);
      const bad = await me({ ...bearer('not-a-token'), ...cookie(tb) });
      expect(bad.status).toBe(401);
    });

    it('refuse a bad or expired Authorization credential with 401, never as anonymous', async () => {
      const u = await local.user();
      const refused = [
        'garbage',
        `${(await local.session(u.id)).slice(0, -4)}AAAA`,
        await local.session(u.id, { iss: 'https://other.example.test' }),
        await local.session(u.id, { azp: 'https://evil.example.test' }),
        await local.session(u.id, { notBefore: 60 }),
        await local.session(u.id, { expiresIn: -6 }),
      ];
      for (const token of refused) {
        const res = await me(bearer(token));
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: 'unauthenticated' });
      }
      expect((await me({ authorization: 'Basic dXNlcjpwdw==' })).status).toBe(401);
    });

    it('expire after exp plus 5 s of skew on the service clock', async () => {
      const u = await local.user();
      const token = await local.session(u.id, { expiresIn: 60 });
      await local.advance(64_000);
      expect((await me(bearer(token))).status).toBe(200);
      await local.advance(2_000);
      expect((await me(bearer(token))).status).toBe(401);
    });

    it('count as no credential when an expired or invalid cookie is sent', async () => {
      const u = await local.user();
      const expired = await local.session(u.id, { expiresIn: -60 });
      for (const c of [expired, 'garbage']) {
        const res = await me(cookie(c));
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ user: null, roles: ['anon'] });
      }
    });

    it('refuse a credential of another deployment', async () => {
      // Another deployment's provider: its own key, minting under its own issuer or (forged) under ours.
      const other = await otherProvider(`${local.base}/_local/idp`);
      try {
        const u = await other.post('/_local/users', {});
        expect((await me(bearer((await other.post('/_local/sessions', { userId: u.id })).token))).status).toBe(401);
        const forged = (await other.post('/_local/sessions', { userId: u.id, iss: `${local.base}/_local/idp`, azp: local.base })).token;
        expect((await me(bearer(forged))).status).toBe(401);
      } finally {
        await other.close();
      }
    });

    it('need an Origin of the deployment for writes (403 bad_origin)', async () => {
      const u = await local.user();
      const token = await local.session(u.id);
      const confirm = (headers: Record<string, string>) =>
        fetch(`${local.base}/api/v1/devices/confirm`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ code: 'ABCDEFGH' }),
        });
      for (const origin of [undefined, 'https://evil.example.test', 'http://localhost.evil.test']) {
        const headers = origin ? { ...bearer(token), origin } : bearer(token);
        const res = await confirm(headers);
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ error: 'bad_origin' });
        expect((await confirm(origin ? { ...cookie(token), origin } : cookie(token))).status).toBe(403);
      }
      for (const origin of [local.base, 'http://localhost:5173', 'http://127.0.0.1']) {
        const res = await confirm({ ...bearer(token), origin });
        expect(await res.json()).toMatchObject({ error: 'unknown_code' });
      }
    });

    it('read with no Origin at all', async () => {
      const u = await local.user();
      expect((await local.api('GET', '/api/v1/devices', { token: await local.session(u.id) })).status).toBe(200);
    });
  });

  describe('desktop app device tokens', () => {
    it('refuse malformed and unknown device tokens with 401', async () => {
      for (const token of ['svc_dev_short', `svc_dev_${'A'.repeat(43)}`, `svc_dev_${'A'.repeat(44)}`]) {
        expect((await me(bearer(token))).status).toBe(401);
      }
    });
  });

  describe('API keys', () => {
    it("are the key's user, with only the scoped features", async () => {
      const u = await local.user({ plan: 'premium' });
      const full = await me(bearer(await local.apiKey(u.id)));
      expect(full.status).toBe(200);
      expect(full.body).toMatchObject({ user: { id: u.id }, roles: ['free', 'premium'] });
      expect(full.body.features).toContain('candles.minute');
      const scoped = await me(bearer(await local.apiKey(u.id, ['api.read', 'candles.daily'])));
      expect(scoped.body.features).toEqual(['candles.daily', 'api.read']);
    });

    it('need api.read on read routes, except the public snapshot, item data and icons', async () => {
      const u = await local.user();
      const key = await local.apiKey(u.id, ['watchlist']);
      const res = await me(bearer(key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String), feature: 'api.read' });
      // The spec's exceptions are the public snapshot, item data and icons: /config is a read route like /me.
      expect((await local.api('GET', '/api/v1/config', { token: key })).body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
      expect((await local.api('GET', '/api/v1/items/search-index', { token: key })).status).not.toBe(403);
      const withheld = await local.user({ withhold: ['api.read'] });
      expect((await me(bearer(await local.apiKey(withheld.id)))).body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
    });

    it("refuse an organization's key and unknown keys with 401", async () => {
      const org = (await local.api('POST', '/_local/api-keys', { body: { orgId: 'org_acme' } })).body.key;
      expect((await me(bearer(org))).status).toBe(401);
      expect((await me(bearer('ak_unknown_key'))).status).toBe(401);
    });

    it('answer 503 unavailable when the identity provider cannot be asked', async () => {
      const u = await local.user();
      const key = await local.apiKey(u.id);
      await local.faults({ identity: 'down' });
      try {
        const res = await me(bearer(key));
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ error: 'unavailable' });
      } finally {
        await local.faults({ identity: 'up' });
      }
    });

    it('cache a verdict 5 minutes: a revoked key works until the cache lapses, also while the provider is down', async () => {
      const u = await local.user();
      const key = await local.apiKey(u.id);
      expect((await me(bearer(key))).status).toBe(200);
      await local.api('DELETE', `/_local/api-keys/${encodeURIComponent(key)}`);
      await local.faults({ identity: 'down' });
      await local.advance(4 * 60_000);
      expect((await me(bearer(key))).status).toBe(200);
      await local.faults({ identity: 'up' });
      await local.advance(60_000);
      expect((await me(bearer(key))).status).toBe(401);
    });

    it('cache a refusal 60 s without asking again', async () => {
      const key = 'ak_refused_once';
      expect((await me(bearer(key))).status).toBe(401);
      await local.faults({ identity: 'down' });
      try {
        await local.advance(59_000);
        expect((await me(bearer(key))).status).toBe(401);
        await local.advance(1_000);
        expect((await me(bearer(key))).status).toBe(503);
      } finally {
        await local.faults({ identity: 'up' });
      }
    });

    it('send writes without an Origin', async () => {
      const u = await local.user();
      const res = await fetch(`${local.base}/api/v1/devices/confirm`, {
        method: 'POST',
        headers: bearer(await local.apiKey(u.id)),
        body: '{"code":"ABCDEFGH"}',
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'sessions_only' });
    });
  });
});
