import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBook, uploadBook } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';

const SECOND = 1000;
const MINUTE = 60_000;
const DAY = 86_400_000;
const CODE_RE = /^[A-HJ-NP-Z2-9]{8}$/;
const DEVICE_TOKEN_RE = /^svc_dev_[A-Za-z0-9_-]{43}$/;

/**
 * Integration, black box: api.md "Conventions", "Account and contribution", "Device pairing", "Contributor
 * window", the Environment and Account endpoints, "Authentication", "Errors", "Limits" as they apply to those
 * routes, and DESIGN.md's local control API, written from the documents' words and checked over real HTTP.
 */
describe('spec: account, authentication and the control API', () => {
  let local: Local;
  let ipSeq = 0;
  /** A fresh viewer address per anonymous request keeps the anonymous rate limit out of the way. */
  const ip = () => ({ 'x-forwarded-for': `192.0.2.${(++ipSeq % 250) + 1}` });
  const anon = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    local.api(method, path, { body, headers: { ...ip(), ...headers } });
  const signIn = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { ...u, token: await local.session(u.id, { expiresIn: 30 * 86_400 }) };
  };
  const pair = async (name?: string) =>
    (await anon('POST', '/api/v1/devices/pair', name === undefined ? {} : { name })).body as { code: string; pairId: string; expires: number };
  const confirm = (token: string, code: string, headers: Record<string, string> = {}) =>
    local.api('POST', '/api/v1/devices/confirm', { token, body: { code }, headers });
  const poll = (pairId: string) => anon('GET', `/api/v1/devices/pair/${encodeURIComponent(pairId)}`);
  /** The error body: `{error, message?}` and nothing else unless the spec names it. */
  const expectError = (res: { status: number; body: unknown }, status: number, code: string, extra: Record<string, unknown> = {}) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    const { error, message, ...rest } = res.body as Record<string, unknown>;
    expect(error).toBe(code);
    if (message !== undefined) expect(typeof message).toBe('string');
    expect(rest).toEqual(extra);
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  describe('conventions', () => {
    it('answers 404 not_found for paths that are not routes', async () => {
      for (const path of ['/api/v1/nothing-here', '/api/v1/me/extra', '/api/v1/devices/pair/a/b', '/api/v1/device', '/api/v1/me/', '/api/v2/me']) {
        const res = await anon('GET', path);
        expectError(res, 404, 'not_found');
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
    });

    it('answers 405 method_not_allowed with Allow for a route path with another method', async () => {
      const cases: Array<[string, string, string[]]> = [
        ['POST', '/api/v1/me', ['GET']],
        ['DELETE', '/api/v1/me', ['GET']],
        ['PUT', '/api/v1/config', ['GET']],
        ['POST', '/api/v1/contributions', ['GET']],
        ['GET', '/api/v1/devices/confirm', ['POST']],
        ['PUT', '/api/v1/devices/pair', ['POST']],
        ['POST', '/api/v1/devices/pair/pair_x', ['GET']],
        ['PATCH', '/api/v1/devices/dev_x', ['DELETE']],
        ['POST', '/api/v1/devices', ['GET']],
        ['GET', '/api/v1/admin/snapshot', ['POST']],
      ];
      for (const [method, path, allowed] of cases) {
        const res = await anon(method, path);
        expectError(res, 405, 'method_not_allowed');
        const allow = (res.headers.get('allow') ?? '').split(',').map((s) => s.trim());
        for (const m of allowed) expect(allow, `${method} ${path}`).toContain(m);
        expect(allow).not.toContain(method);
      }
    });

    it('answers 404 and 405 to a session whatever its Origin: a path that is not a route writes nothing', async () => {
      const u = await signIn();
      for (const origin of [undefined, 'https://evil.example']) {
        const headers: Record<string, string> = { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' };
        if (origin) headers.origin = origin;
        const post = (path: string) =>
          fetch(`${local.base}${path}`, { method: 'POST', headers, body: '{}' }).then(async (r) => ({ status: r.status, body: await r.json() }));
        expectError(await post('/api/v1/me'), 405, 'method_not_allowed');
        expectError(await post('/api/v1/devices'), 405, 'method_not_allowed');
        expectError(await post('/api/v1/nothing-here'), 404, 'not_found');
        expectError(await post('/api/v1/ah/scans'), 404, 'not_found');
      }
    });

    it('answers JSON with now in Unix ms from the service clock', async () => {
      const now = await local.now();
      const res = await anon('GET', '/api/v1/me');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.now).toBe(now);
      expect(Number.isSafeInteger(res.body.now)).toBe(true);
    });
  });

  describe('environment', () => {
    it('GET /config answers env, the publishable key, apiBase and cdnBase, cached 300 s', async () => {
      const res = await anon('GET', '/api/v1/config');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['apiBase', 'cdnBase', 'clerkPublishableKey', 'env']);
      expect(res.body.env).toBe('dev');
      expect(res.body.clerkPublishableKey).toEqual(expect.stringMatching(/^pk_/));
      expect(res.body.apiBase).toBe(`${local.base}/api/v1/`);
      expect(typeof res.body.cdnBase).toBe('string');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    });

    it('GET /config is public; an API key needs api.read (not one of the exceptions); a bad credential is 401', async () => {
      const u = await signIn();
      const device = await pairDevice(local, u.id);
      const reader = await local.apiKey(u.id, ['api.read']);
      for (const token of [u.token, device.token, reader]) expect((await local.api('GET', '/api/v1/config', { token })).status).toBe(200);
      const writer = await local.apiKey(u.id, ['watchlist']);
      expectError(await local.api('GET', '/api/v1/config', { token: writer }), 403, 'forbidden', { feature: 'api.read' });
      expectError(await anon('GET', '/api/v1/config', undefined, { authorization: 'Bearer not-a-token' }), 401, 'unauthenticated');
    });

    it('POST /admin/snapshot: 401 anonymous, 403 forbidden admin to others, writes snapshots for admins', async () => {
      expectError(await anon('POST', '/api/v1/admin/snapshot'), 401, 'unauthenticated');
      const premium = await signIn({ plan: 'premium' });
      const denied = await local.api('POST', '/api/v1/admin/snapshot', { token: premium.token });
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ error: 'forbidden', feature: 'admin' });
      const admin = await signIn({ grants: ['admin'] });
      const now = await local.now();
      const res = await local.api('POST', '/api/v1/admin/snapshot', { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ written: expect.any(Array), now });
      for (const w of res.body.written) expect(Object.keys(w).sort()).toEqual(['at', 'bytes', 'market']);
      expectError(await local.api('POST', '/api/v1/admin/snapshot', { token: admin.token, headers: { origin: 'https://evil.example' } }), 403, 'bad_origin');
    });
  });

  describe('GET /api/v1/me', () => {
    it('answers every field of the resource for anonymous callers', async () => {
      const res = await anon('GET', '/api/v1/me');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['contributor', 'features', 'limits', 'now', 'roles', 'user']);
      expect(res.body.user).toBeNull();
      expect(res.body.roles).toEqual(['anon']);
      expect(res.body.contributor).toEqual({ until: null, scans7d: 0 });
      expect(res.body.features).not.toContain('prices.live');
      expect(res.body.features).toContain('candles.hourly');
      expect(res.body.limits).toMatchObject({ historyDays: 7, apiPerMinute: expect.any(Number) });
    });

    it('describes the signed-in user through a session, a device and an API key alike', async () => {
      const u = await signIn({ email: 'trio@example.test' });
      const device = await pairDevice(local, u.id);
      const key = await local.apiKey(u.id);
      for (const token of [u.token, device.token, key]) {
        const res = await local.api('GET', '/api/v1/me', { token });
        expect(res.status).toBe(200);
        expect(res.body.user).toEqual({ id: u.id, email: 'trio@example.test' });
        expect(res.body.roles).toEqual(['free']);
        expect(res.body.features).not.toContain('prices.live');
        expect(res.body.features).not.toContain('admin');
        expect(res.body.contributor).toEqual({ until: null, scans7d: 0 });
      }
    });

    it('gives contributor and premium depth, books and historyDays 90; candles.minute is paid', async () => {
      const now = await local.now();
      const contributor = await signIn({ contributorUntil: now + DAY });
      const premium = await signIn({ plan: 'premium' });
      const c = (await local.api('GET', '/api/v1/me', { token: contributor.token })).body;
      const p = (await local.api('GET', '/api/v1/me', { token: premium.token })).body;
      expect(c.roles).toContain('contributor');
      expect(p.roles).toContain('premium');
      for (const body of [c, p]) {
        expect(body.features).toEqual(expect.arrayContaining(['prices.live', 'depth', 'books', 'candles.hourly']));
        expect(body.limits.historyDays).toBe(90);
      }
      expect(c.features).not.toContain('candles.minute');
      expect(p.features).toContain('candles.minute');
      expect(c.contributor.until).toBe(now + DAY);
    });
  });

  describe('authentication', () => {
    it('refuses a garbled Authorization credential with 401, never as anonymous', async () => {
      const headers = [
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'Token abc',
        'Bearer a b',
        'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln',
        'Bearer svc_dev_short',
        `Bearer svc_dev_${'A'.repeat(43)}`,
        `Bearer svc_dev_${'A'.repeat(44)}`,
        'Bearer ak_unknown_key',
      ];
      for (const authorization of headers) {
        const res = await anon('GET', '/api/v1/me', undefined, { authorization });
        expectError(res, 401, 'unauthenticated');
      }
    });

    it('accepts the session by cookie or Authorization; an expired or invalid cookie counts as no credential', async () => {
      const u = await signIn();
      const byCookie = await anon('GET', '/api/v1/me', undefined, { cookie: `theme=dark; __session=${u.token}` });
      expect(byCookie.body.user?.id).toBe(u.id);
      const short = await local.session(u.id, { expiresIn: 10 });
      await local.advance(16 * SECOND);
      for (const cookie of [`__session=${short}`, '__session=garbage', '__session=']) {
        const res = await anon('GET', '/api/v1/me', undefined, { cookie });
        expect(res.status, cookie).toBe(200);
        expect(res.body.user).toBeNull();
      }
      expectError(await anon('GET', '/api/v1/me', undefined, { authorization: `Bearer ${short}` }), 401, 'unauthenticated');
      expectError(await anon('GET', '/api/v1/me', undefined, { authorization: `Bearer ${short}`, cookie: `__session=${u.token}` }), 401, 'unauthenticated');
    });

    it('verifies exp and nbf with 5 s of skew', async () => {
      const u = await local.user();
      const early = await local.session(u.id, { notBefore: 5 });
      const tooEarly = await local.session(u.id, { notBefore: 7 });
      expect((await local.api('GET', '/api/v1/me', { token: early })).status).toBe(200);
      expectError(await local.api('GET', '/api/v1/me', { token: tooEarly }), 401, 'unauthenticated');
      const brief = await local.session(u.id, { expiresIn: 60 });
      await local.advance(64 * SECOND);
      expect((await local.api('GET', '/api/v1/me', { token: brief })).status).toBe(200);
      await local.advance(3 * SECOND);
      expectError(await local.api('GET', '/api/v1/me', { token: brief }), 401, 'unauthenticated');
    });

    it("needs azp among the dev deployment's origins and iss of the instance", async () => {
      const u = await local.user();
      for (const azp of ['http://localhost', 'http://localhost:5173', 'http://127.0.0.1:8080', local.base]) {
        expect((await local.api('GET', '/api/v1/me', { token: await local.session(u.id, { azp }) })).status, azp).toBe(200);
      }
      for (const azp of ['https://evil.example', 'https://localhost:5173', 'http://localhost.evil.example', 'null']) {
        expectError(await local.api('GET', '/api/v1/me', { token: await local.session(u.id, { azp }) }), 401, 'unauthenticated');
      }
      for (const iss of ['https://clerk.other.example', `${local.base}/_local/idp/`, local.base]) {
        expectError(await local.api('GET', '/api/v1/me', { token: await local.session(u.id, { iss }) }), 401, 'unauthenticated');
      }
    });

    it('answers 403 bad_origin to a session write without an Origin of the deployment', async () => {
      const u = await signIn();
      const p = await pair();
      for (const origin of ['https://evil.example', 'null', `${local.base}/`, 'https://localhost']) {
        expectError(await confirm(u.token, p.code, { origin }), 403, 'bad_origin');
      }
      const noOrigin = await fetch(`${local.base}/api/v1/devices/confirm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: p.code }),
      });
      expect(noOrigin.status).toBe(403);
      expect(await noOrigin.json()).toMatchObject({ error: 'bad_origin' });
      const byCookie = await fetch(`${local.base}/api/v1/devices/confirm`, {
        method: 'POST',
        headers: { cookie: `__session=${u.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: p.code }),
      });
      expect(byCookie.status).toBe(403);
      expect(await byCookie.json()).toMatchObject({ error: 'bad_origin' });
      // A public write from a session follows the same rule.
      expectError(
        await local.api('POST', '/api/v1/devices/pair', { token: u.token, body: {}, headers: { origin: 'https://evil.example' } }),
        403,
        'bad_origin',
      );
      const ok = await confirm(u.token, p.code, { origin: 'http://localhost:5173' });
      expect(ok.status).toBe(200);
    });

    it('lets devices and API keys write without an Origin', async () => {
      const u = await signIn();
      const device = await pairDevice(local, u.id);
      const other = await pairDevice(local, u.id);
      const res = await fetch(`${local.base}/api/v1/devices/${other.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${device.token}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ deleted: true });
    });

    it('refuses organization keys and unknown keys with 401; 503 unavailable when the provider cannot be asked', async () => {
      const org = (await (
        await fetch(`${local.base}/_local/api-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ orgId: 'org_spec' }),
        })
      ).json()) as {
        key: string;
      };
      expect(org.key).toMatch(/^ak_/);
      expectError(await local.api('GET', '/api/v1/me', { token: org.key }), 401, 'unauthenticated');
      const u = await local.user();
      const fresh = await local.apiKey(u.id);
      await local.faults({ identity: 'down' });
      try {
        expectError(await local.api('GET', '/api/v1/me', { token: fresh }), 503, 'unavailable');
      } finally {
        await local.faults({ identity: 'up' });
      }
      expect((await local.api('GET', '/api/v1/me', { token: fresh })).status).toBe(200);
    });

    it('answers a refused key 401 for 60 s without asking again, then asks again', async () => {
      const u = await local.user();
      const key = await local.apiKey(u.id);
      expect((await local.api('GET', '/api/v1/me', { token: key })).status).toBe(200);
      await fetch(`${local.base}/_local/api-keys/${encodeURIComponent(key)}`, { method: 'DELETE' });
      await local.advance(5 * MINUTE);
      expectError(await local.api('GET', '/api/v1/me', { token: key }), 401, 'unauthenticated');
      await local.faults({ identity: 'down' });
      try {
        await local.advance(59 * SECOND);
        expectError(await local.api('GET', '/api/v1/me', { token: key }), 401, 'unauthenticated');
        await local.advance(2 * SECOND);
        expectError(await local.api('GET', '/api/v1/me', { token: key }), 503, 'unavailable');
      } finally {
        await local.faults({ identity: 'up' });
      }
    });

    it('needs api.read for an API key on signed-in read routes, 403 forbidden with the feature', async () => {
      const u = await local.user();
      const writeOnly = await local.apiKey(u.id, ['api.upload']);
      for (const path of ['/api/v1/devices', '/api/v1/contributions']) {
        const res = await local.api('GET', path, { token: writeOnly });
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
      }
      const reader = await local.apiKey(u.id, ['api.read']);
      expect((await local.api('GET', '/api/v1/devices', { token: reader })).body).toEqual({ devices: [] });
    });
  });

  describe('device pairing', () => {
    it('opens a pairing for an anonymous app: {code, pairId, expires} valid 10 minutes', async () => {
      const now = await local.now();
      for (const body of [{ name: 'Laptop' }, {}, undefined]) {
        const res = await anon('POST', '/api/v1/devices/pair', body);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['code', 'expires', 'pairId']);
        expect(res.body.code).toMatch(CODE_RE);
        expect(typeof res.body.pairId).toBe('string');
        expect(res.body.expires).toBe(now + 10 * MINUTE);
      }
    });

    it('answers 400 bad_request to a pairing body that is not a JSON object', async () => {
      for (const body of ['not json', '[1]', JSON.stringify({ name: 42 })]) {
        expectError(await anon('POST', '/api/v1/devices/pair', body), 400, 'bad_request');
      }
    });

    it('waits, binds on confirm (code with spaces or dashes), hands the token out once, then is gone', async () => {
      const u = await signIn();
      const p = await pair('Gaming PC');
      expect(await poll(p.pairId)).toMatchObject({ status: 200, body: { status: 'waiting' } });
      expect((await poll(p.pairId)).body).toEqual({ status: 'waiting' });
      const typed = `${p.code.slice(0, 4)}-${p.code.slice(4)}`;
      const bound = await confirm(u.token, typed);
      expect(bound.status).toBe(200);
      expect(bound.body).toEqual({ device: { id: expect.any(String), name: 'Gaming PC' } });
      const again = await confirm(u.token, `${p.code.slice(0, 4)} ${p.code.slice(4)}`);
      expect(again.body).toEqual(bound.body);
      const collected = await poll(p.pairId);
      expect(collected.status).toBe(200);
      expect(collected.body).toEqual({ status: 'paired', token: expect.stringMatching(DEVICE_TOKEN_RE) });
      expectError(await poll(p.pairId), 404, 'not_found');
      const me = await local.api('GET', '/api/v1/me', { token: collected.body.token });
      expect(me.body.user.id).toBe(u.id);
      const list = (await local.api('GET', '/api/v1/devices', { token: u.token })).body.devices;
      expect(list.map((d: { id: string }) => d.id)).toContain(bound.body.device.id);
    });

    it("confirms with a cookie session carrying the deployment's Origin", async () => {
      const u = await signIn();
      const p = await pair();
      const res = await fetch(`${local.base}/api/v1/devices/confirm`, {
        method: 'POST',
        headers: { cookie: `__session=${u.token}`, origin: local.base, 'content-type': 'application/json' },
        body: JSON.stringify({ code: p.code }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ device: { id: expect.any(String), name: expect.any(String) } });
    });

    it('keeps a pairing 10 minutes: then poll 404 and confirm 410 expired', async () => {
      const u = await signIn();
      const waiting = await pair();
      const bound = await pair();
      expect((await confirm(u.token, bound.code)).status).toBe(200);
      await local.advance(10 * MINUTE - 2 * SECOND);
      expect((await poll(waiting.pairId)).body).toEqual({ status: 'waiting' });
      await local.advance(3 * SECOND);
      expectError(await poll(waiting.pairId), 404, 'not_found');
      expectError(await poll(bound.pairId), 404, 'not_found');
      expectError(await confirm(u.token, waiting.code), 410, 'expired');
      expectError(await confirm(u.token, bound.code), 410, 'expired');
      const devices = (await local.api('GET', '/api/v1/devices', { token: u.token })).body.devices;
      expect(devices).toEqual([]);
    });

    it('confirm: 401 anonymous, 403 sessions_only for devices and API keys, 404 unknown_code', async () => {
      const u = await signIn();
      const p = await pair();
      expectError(await anon('POST', '/api/v1/devices/confirm', { code: p.code }), 401, 'unauthenticated');
      const device = await pairDevice(local, u.id);
      const key = await local.apiKey(u.id);
      for (const token of [device.token, key])
        expectError(await local.api('POST', '/api/v1/devices/confirm', { token, body: { code: p.code } }), 403, 'sessions_only');
      for (const code of ['ABCDEFGH', 'abcd-efgh', 'HELLO', '12345678']) {
        expectError(await confirm(u.token, code), 404, 'unknown_code');
      }
      const other = await signIn();
      expect((await confirm(other.token, p.code)).status).toBe(200);
      expectError(await confirm(u.token, p.code), 404, 'unknown_code');
    });

    it('answers 404 for an unknown pair id', async () => {
      expectError(await poll('pair_doesnotexist'), 404, 'not_found');
    });

    it('lists Device records {id, name, created, lastSeen} newest first', async () => {
      const u = await signIn();
      const first = await pairDevice(local, u.id, 'First');
      await local.advance(SECOND);
      const second = await pairDevice(local, u.id, 'Second');
      const now = await local.now();
      const res = await local.api('GET', '/api/v1/devices', { token: u.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['devices']);
      expect(res.body.devices.map((d: { id: string }) => d.id)).toEqual([second.id, first.id]);
      for (const d of res.body.devices) expect(Object.keys(d).sort()).toEqual(['created', 'id', 'lastSeen', 'name']);
      expect(res.body.devices[0]).toMatchObject({ name: 'Second', created: now });
      expectError(await anon('GET', '/api/v1/devices'), 401, 'unauthenticated');
    });

    it("deletes a device: {deleted: true}, its token stops at once; another account's device is {deleted: false}", async () => {
      const u = await signIn();
      const stranger = await signIn();
      const device = await pairDevice(local, u.id);
      const theirs = await pairDevice(local, stranger.id);
      expect((await local.api('DELETE', `/api/v1/devices/${theirs.id}`, { token: u.token })).body).toEqual({ deleted: false });
      expect((await local.api('GET', '/api/v1/me', { token: theirs.token })).status).toBe(200);
      const res = await local.api('DELETE', `/api/v1/devices/${device.id}`, { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      expectError(await local.api('GET', '/api/v1/me', { token: device.token }), 401, 'unauthenticated');
      expect((await local.api('DELETE', `/api/v1/devices/${device.id}`, { token: u.token })).body).toEqual({ deleted: false });
      expectError(await anon('DELETE', `/api/v1/devices/${device.id}`), 401, 'unauthenticated');
    });
  });

  describe('contributions and the contributor window', () => {
    it('GET /contributions: 401 anonymous, 400 bad_query for a malformed from, {scans, until, now}', async () => {
      expectError(await anon('GET', '/api/v1/contributions'), 401, 'unauthenticated');
      const u = await signIn();
      for (const from of ['x', '-1', '1e3', '12.5', '']) {
        const res = await local.api('GET', `/api/v1/contributions?from=${from}`, { token: u.token });
        if (from === '') expect(res.status).toBe(200);
        else expectError(res, 400, 'bad_query');
      }
      const now = await local.now();
      const res = await local.api('GET', `/api/v1/contributions?from=${now + DAY}`, { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ scans: [], until: null, now });
    });

    it('records a device upload, opens the 14-day window and counts it in scans7d', async () => {
      const u = await signIn();
      const device = await pairDevice(local, u.id);
      const now = await local.now();
      const up = await uploadBook(local, device.token, makeBook(now - MINUTE, { keys: 150, market: 'forever.rp.horde.us' }));
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      await local.settle();
      const list = await local.api('GET', '/api/v1/contributions', { token: u.token });
      expect(list.status).toBe(200);
      expect(list.body.scans).toHaveLength(1);
      const rec = list.body.scans[0];
      expect(up.body.credited).toBe(true);
      expect(rec).toEqual({ market: 'forever.rp.horde.us', at: now - MINUTE, kind: 'book', items: 150, complete: true, credited: true });
      expect(list.body.until).toBe(now + 14 * DAY);
      const me = (await local.api('GET', '/api/v1/me', { token: u.token })).body;
      expect(me.contributor).toEqual({ until: now + 14 * DAY, scans7d: 1 });
      const claim = (await local.api('GET', `/_local/users/${u.id}`)).body.publicMetadata.contributorUntil;
      expect(claim).toBe(now + 14 * DAY);
      expect((await local.api('GET', '/api/v1/me', { token: device.token })).body.roles).toContain('contributor');
    });
  });

  describe('contributor window: end = max(current end, now + 14 days)', () => {
    it('keeps a later end the account already holds through its provider claim', async () => {
      const now = await local.now();
      const u = await signIn({ contributorUntil: now + 30 * DAY });
      const device = await pairDevice(local, u.id);
      const up = await uploadBook(local, device.token, makeBook(now - MINUTE, { keys: 150, market: 'forever.pvp.alliance.us' }));
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      expect(up.body.credited).toBe(true);
      await local.settle();
      expect((await local.api('GET', '/api/v1/me', { token: u.token })).body.contributor).toEqual({ until: now + 30 * DAY, scans7d: 1 });
      expect((await local.api('GET', '/api/v1/contributions', { token: u.token })).body.until).toBe(now + 30 * DAY);
      expect((await local.api('GET', `/_local/users/${u.id}`)).body.publicMetadata.contributorUntil).toBe(now + 30 * DAY);
    });
  });

  describe('limits', () => {
    it('rate limits an anonymous IP at apiPerMinute across /api/v1/ routes: 429 rate_limited with Retry-After: 60', async () => {
      await local.setClock(Math.ceil(((await local.now()) + 1) / MINUTE) * MINUTE);
      const headers = { 'x-forwarded-for': '203.0.113.201' };
      const paths = ['/api/v1/me', '/api/v1/config', '/api/v1/nothing-here'];
      for (let i = 0; i < 60; i++) {
        const res = await local.api('GET', paths[i % paths.length], { headers });
        expect(res.status, `request ${i + 1}`).not.toBe(429);
      }
      const over = await local.api('GET', '/api/v1/me', { headers });
      expectError(over, 429, 'rate_limited');
      expect(over.headers.get('retry-after')).toBe('60');
      expect((await local.api('GET', '/api/v1/me', { headers: { 'x-forwarded-for': '203.0.113.202' } })).status).toBe(200);
      await local.advance(MINUTE);
      expect((await local.api('GET', '/api/v1/me', { headers })).status).toBe(200);
    });
  });

  describe('local control API', () => {
    const control = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${local.base}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    it('GET /_local/health answers {ok: true, now}', async () => {
      const now = await local.now();
      expect(await control('GET', '/_local/health')).toEqual({ status: 200, body: { ok: true, now } });
    });

    it('POST /_local/users makes users; PATCH changes plan, grants and withheld features', async () => {
      const made = await control('POST', '/_local/users', { email: 'ctl@example.test', plan: 'free', grants: [], partner: false, withhold: [] });
      expect(made.status).toBe(200);
      expect(made.body).toMatchObject({ id: expect.any(String), email: 'ctl@example.test' });
      const defaulted = await control('POST', '/_local/users', {});
      expect(defaulted.body).toMatchObject({ id: expect.any(String), email: expect.stringContaining('@') });
      const id = made.body.id as string;
      expect((await control('PATCH', `/_local/users/${id}`, { plan: 'premium', grants: ['admin'], withhold: ['books'] })).status).toBe(200);
      const token = (await control('POST', '/_local/sessions', { userId: id })).body.token as string;
      const me = (await local.api('GET', '/api/v1/me', { token })).body;
      expect(me.roles).toContain('premium');
      expect(me.features).toContain('admin');
      expect(me.features).not.toContain('books');
      expect(me.features).toContain('candles.minute');
    });

    it('POST /_local/sessions mints refusable tokens on demand', async () => {
      const u = await local.user();
      const res = await control('POST', '/_local/sessions', { userId: u.id, expiresIn: 120 });
      expect(res).toEqual({ status: 200, body: { token: expect.any(String) } });
      expect((await local.api('GET', '/api/v1/me', { token: res.body.token })).status).toBe(200);
      const future = (await control('POST', '/_local/sessions', { userId: u.id, notBefore: 600 })).body.token;
      expect((await local.api('GET', '/api/v1/me', { token: future })).status).toBe(401);
    });

    it('POST /_local/api-keys makes scoped ak_ keys; DELETE revokes', async () => {
      const u = await local.user();
      const res = await control('POST', '/_local/api-keys', { userId: u.id, scopes: ['api.read'] });
      expect(res.status).toBe(200);
      expect(res.body.key).toMatch(/^ak_/);
      const me = (await local.api('GET', '/api/v1/me', { token: res.body.key })).body;
      expect(me.features).toEqual(['api.read']);
      expect((await control('DELETE', `/_local/api-keys/${encodeURIComponent(res.body.key)}`)).status).toBe(200);
    });

    it('POST /_local/clock sets or advances the manual clock and never goes back', async () => {
      const now = await local.now();
      expect(await control('POST', '/_local/clock', { advance: 1000 })).toEqual({ status: 200, body: { now: now + 1000 } });
      expect(await control('POST', '/_local/clock', { now: now + 5000 })).toEqual({ status: 200, body: { now: now + 5000 } });
      expect(await control('POST', '/_local/clock', { now: now })).toEqual({ status: 200, body: { now: now + 5000 } });
    });

    it('POST /_local/settle and /_local/tick answer {now} and {ran, now}', async () => {
      const now = await local.now();
      expect(await control('POST', '/_local/settle')).toEqual({ status: 200, body: { now } });
      const tick = await control('POST', '/_local/tick');
      expect(tick).toEqual({ status: 200, body: { ran: expect.any(Array), now } });
    });

    it('POST /_local/faults answers the fault state', async () => {
      const down = await control('POST', '/_local/faults', { identity: 'down' });
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({ identity: 'down' });
      const up = await control('POST', '/_local/faults', { identity: 'up', storage: 'up' });
      expect(up.body).toMatchObject({ identity: 'up', storage: 'up' });
    });

    it("answers 405 to a control route's path with another method", async () => {
      for (const [method, path] of [
        ['POST', '/_local/health'],
        ['GET', '/_local/users'],
        ['GET', '/_local/sessions'],
        ['GET', '/_local/api-keys'],
        ['GET', '/_local/api-keys/ak_x'],
        ['GET', '/_local/clock'],
        ['GET', '/_local/settle'],
        ['GET', '/_local/tick'],
        ['GET', '/_local/faults'],
        ['GET', '/_local/items'],
        ['POST', '/_local/files'],
      ]) {
        expect((await control(method, path)).status, `${method} ${path}`).toBe(405);
      }
    });

    it('POST /_local/items publishes a generated item file and answers {build}', async () => {
      const file = {
        v: 1,
        build: 'spec-account-1',
        source: 'test',
        suffixes: {},
        statNames: {},
        bonusLists: {},
        bonusTrees: {},
        items: { '19019': { n: 'Thunderfury', q: 5, il: 80, c: 2, sc: 7, ic: 'inv_sword_39' } },
      };
      expect(await control('POST', '/_local/items', file)).toEqual({ status: 200, body: { build: 'spec-account-1' } });
      expect((await control('POST', '/_local/items', [1])).status).toBe(400);
    });

    it('GET /_local/files lists the bucket under a prefix', async () => {
      const res = await control('GET', '/_local/files?prefix=nothing-under-here/');
      expect(res).toEqual({ status: 200, body: { keys: [] } });
    });
  });
});
