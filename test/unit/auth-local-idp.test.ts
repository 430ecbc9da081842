import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalIdentity } from '../../lib/local/identity/identity';
import { getUser, mergePublicMetadata, verifyApiKey } from '../../shared/auth/idp';
import { isAllowedOrigin } from '../../shared/auth/origins';
import { remoteKeys, verifySessionToken } from '../../shared/auth/session';
import { ManualClock } from '../../shared/clock';
import { FEATURES } from '../../shared/domain/roles';
import type { Services } from '../../shared/services';

const START = Date.UTC(2026, 10, 2, 0, 0, 1);
const SECRET = 'sk_local_test';

/** The provider on a bare HTTP server, as the runtime mounts it. */
async function serve(dataDir: string | ':memory:', clock = new ManualClock(START)) {
  let base = '';
  let idp!: LocalIdentity;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', base);
    if (!(await idp.handle(req, res, url, Buffer.concat(chunks)))) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  idp = new LocalIdentity({ dataDir, issuer: `${base}/_local/idp`, clock, secretKey: SECRET });
  await idp.init();
  const config = {
    env: 'dev',
    publicBase: `${base}/`,
    origins: [base],
    idp: { issuer: `${base}/_local/idp`, jwksUrl: `${base}/_local/idp/.well-known/jwks.json`, apiUrl: `${base}/_local/idp`, secretKey: SECRET },
  };
  const svc = { config, clock, log: () => undefined } as unknown as Services;
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await fetch(`${base}${path}`, { method, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const verify = (token: string) =>
    verifySessionToken(token, {
      keys: remoteKeys(config.idp.jwksUrl),
      issuer: config.idp.issuer,
      now: clock.now(),
      isAllowedAzp: (a) => isAllowedOrigin(a, config as Services['config']),
    });
  return { base, idp, svc, clock, post, verify, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let t: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  t = await serve(':memory:');
});
afterAll(() => t.close());

describe('local identity provider', () => {
  it("mints session tokens the service verifies, carrying the user's claims as they are now", async () => {
    const u = (await t.post('/_local/users', { plan: 'premium', grants: ['admin'], withhold: ['depth'], partner: true, contributorUntil: START + 1000 })).body;
    expect(u.id).toMatch(/^user_/);
    const token = (await t.post('/_local/sessions', { userId: u.id })).body.token;
    const s = await t.verify(token);
    expect(s).toMatchObject({
      userId: u.id,
      email: u.email,
      partner: true,
      claims: { plan: 'premium', contributorUntil: START + 1000, grants: ['admin'], withhold: ['depth'] },
    });
    expect(s?.expires).toBe(Math.floor(START / 1000) * 1000 + 3_600_000);
  });

  it('mints tokens the service must refuse: foreign iss or azp, future nbf, expired', async () => {
    const u = (await t.post('/_local/users', {})).body;
    for (const extra of [{ iss: 'https://other.example.test' }, { azp: 'https://evil.example.test' }, { notBefore: 60 }, { expiresIn: -10 }]) {
      const token = (await t.post('/_local/sessions', { userId: u.id, ...extra })).body.token;
      expect(await t.verify(token)).toBeNull();
    }
  });

  it('follows its clock: a token expires when the clock passes exp plus the skew', async () => {
    const clock = new ManualClock(START);
    const own = await serve(':memory:', clock);
    const u = (await own.post('/_local/users', {})).body;
    const token = (await own.post('/_local/sessions', { userId: u.id, expiresIn: 60 })).body.token;
    clock.advance(64_000);
    expect(await own.verify(token)).not.toBeNull();
    clock.advance(2_000);
    expect(await own.verify(token)).toBeNull();
    await own.close();
  });

  it('verifies API keys: user subject and scopes; organization subject; refuses unknown and revoked keys', async () => {
    const u = (await t.post('/_local/users', {})).body;
    const key = (await t.post('/_local/api-keys', { userId: u.id, scopes: ['api.read'] })).body.key;
    expect(key).toMatch(/^ak_/);
    expect(await verifyApiKey(t.svc, key)).toEqual({ ok: true, subject: u.id, scopes: ['api.read'] });
    const org = (await t.post('/_local/api-keys', { orgId: 'org_x' })).body.key;
    expect(await verifyApiKey(t.svc, org)).toMatchObject({ ok: true, subject: 'org_x' });
    expect(await verifyApiKey(t.svc, 'ak_unknown')).toEqual({ ok: false });
    expect((await t.post(`/_local/api-keys/${encodeURIComponent(key)}`, undefined, 'DELETE')).status).toBe(200);
    expect(await verifyApiKey(t.svc, key)).toEqual({ ok: false });
  });

  it('answers an empty scope list for a key made with scopes: [], and every feature name for a key made without scopes (issue 23, point 9)', async () => {
    const u = (await t.post('/_local/users', { plan: 'premium' })).body;
    const none = await t.post('/_local/api-keys', { userId: u.id, scopes: [] });
    expect(none.body).toMatchObject({ scopes: [], features: [] });
    // An empty list names no feature: the service must not read it as "all of them".
    expect(await verifyApiKey(t.svc, none.body.key)).toEqual({ ok: true, subject: u.id, scopes: [] });
    const all = await t.post('/_local/api-keys', { userId: u.id });
    expect(await verifyApiKey(t.svc, all.body.key)).toEqual({ ok: true, subject: u.id, scopes: [...FEATURES] });
    expect(all.body).toMatchObject({ scopes: [...FEATURES], outOfScope: [] });
    expect(all.body.features).toContain('candles.minute');
  });

  it('reads users and deep-merges public metadata', async () => {
    const u = (await t.post('/_local/users', { email: 'm@example.test', grants: ['x'] })).body;
    await mergePublicMetadata(t.svc, u.id, { contributorUntil: START + 5 });
    expect(await getUser(t.svc, u.id)).toEqual({
      id: u.id,
      email: 'm@example.test',
      plan: null,
      contributorUntil: START + 5,
      grants: ['x'],
      withhold: [],
      partner: false,
    });
    expect(await getUser(t.svc, 'user_nobody')).toBeNull();
  });

  it('changes users through PATCH /_local/users/:id; null removes a field', async () => {
    const u = (await t.post('/_local/users', { plan: 'premium' })).body;
    expect((await t.post(`/_local/users/${u.id}`, { plan: null, grants: ['admin'] }, 'PATCH')).status).toBe(200);
    expect(await getUser(t.svc, u.id)).toMatchObject({ plan: null, grants: ['admin'] });
    expect((await t.post(`/_local/users/${u.id}`, { plan: 'gold' }, 'PATCH')).status).toBe(400);
  });

  it('refuses Backend API calls without the secret key', async () => {
    const res = await fetch(`${t.base}/_local/idp/v1/users/user_x`);
    expect(res.status).toBe(401);
    const svc = { ...t.svc, config: { ...t.svc.config, idp: { ...t.svc.config.idp, secretKey: 'wrong' } } } as Services;
    await expect(getUser(svc, 'user_x')).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('is unreachable while down', async () => {
    t.idp.setDown(true);
    try {
      expect(t.idp.down).toBe(true);
      await expect(verifyApiKey(t.svc, 'ak_any')).rejects.toMatchObject({ code: 'unavailable' });
      await expect(fetch(`${t.base}/_local/idp/.well-known/jwks.json`)).rejects.toThrow();
    } finally {
      t.idp.setDown(false);
    }
  });

  it('keeps its key and users in the data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-'));
    try {
      const first = await serve(dir);
      const u = (await first.post('/_local/users', { plan: 'premium' })).body;
      const jwks1 = await (await fetch(`${first.base}/_local/idp/.well-known/jwks.json`)).json();
      await first.close();
      const second = await serve(dir);
      const jwks2 = await (await fetch(`${second.base}/_local/idp/.well-known/jwks.json`)).json();
      expect(jwks2).toEqual(jwks1);
      expect(await getUser(second.svc, u.id)).toMatchObject({ plan: 'premium' });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the features of keys it kept before empty scopes meant none, and keeps an empty list empty from then on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-'));
    try {
      const first = await serve(dir);
      const u = (await first.post('/_local/users', { plan: 'premium' })).body;
      const old = (await first.post('/_local/api-keys', { userId: u.id })).body.key;
      await first.close();
      // A state file as an earlier runtime wrote it: a key made without scopes kept as [], no version.
      const file = join(dir, 'identity.json');
      const state = JSON.parse(readFileSync(file, 'utf8'));
      delete state.keysVersion;
      for (const k of Object.values(state.apiKeys) as Array<{ scopes: unknown }>) if (k.scopes === null) k.scopes = [];
      writeFileSync(file, JSON.stringify(state));
      const second = await serve(dir);
      expect(await verifyApiKey(second.svc, old)).toEqual({ ok: true, subject: u.id, scopes: [...FEATURES] });
      const fresh = (await second.post('/_local/api-keys', { userId: u.id, scopes: [] })).body.key;
      await second.close();
      const third = await serve(dir);
      expect(await verifyApiKey(third.svc, fresh)).toEqual({ ok: true, subject: u.id, scopes: [] });
      await third.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
