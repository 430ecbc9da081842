import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;

/** Integration: the spec's "Device pairing" state table, row by row, and the devices routes. */
describe('device pairing', () => {
  let local: Local;
  let ipSeq = 0;
  /** Each call comes from its own viewer address, so the anonymous app never meets the rate limit here. */
  const app = (method: string, path: string, body?: unknown) => local.api(method, path, { body, headers: { 'x-forwarded-for': `203.0.113.${++ipSeq % 250}` } });
  const pair = async (name = 'Gaming PC') => (await app('POST', '/api/v1/devices/pair', { name })).body as { code: string; pairId: string; expires: number };
  const poll = (pairId: string) => app('GET', `/api/v1/devices/pair/${pairId}`);
  const confirm = (token: string, code: string) => local.api('POST', '/api/v1/devices/confirm', { token, body: { code } });
  const signIn = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { ...u, token: await local.session(u.id, { expiresIn: 86_400 }) };
  };
  /** Pairs a device all the way; answers its id and token. */
  const paired = async (session: string, name?: string) => {
    const p = await pair(name);
    const device = (await confirm(session, p.code)).body.device as { id: string; name: string };
    const token = (await poll(p.pairId)).body.token as string;
    return { id: device.id, token };
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('(none) → waiting: an anonymous app gets an 8-character code valid 10 minutes', async () => {
    const now = await local.now();
    const res = await app('POST', '/api/v1/devices/pair', { name: 'Gaming PC' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: expect.stringMatching(/^[A-HJ-NP-Z2-9]{8}$/), pairId: expect.any(String), expires: now + 10 * MINUTE });
  });

  it('waiting, polled: answers waiting', async () => {
    const p = await pair();
    const res = await poll(p.pairId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'waiting' });
  });

  it('waiting → bound: a session confirms (spaces, dashes and lower case accepted); confirming again answers the same device', async () => {
    const u = await signIn();
    const p = await pair('Laptop');
    const typed = `${p.code.slice(0, 4).toLowerCase()} - ${p.code.slice(4)}`;
    const first = await confirm(u.token, typed);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ device: { id: expect.any(String), name: 'Laptop' } });
    const again = await confirm(u.token, p.code);
    expect(again.body).toEqual(first.body);
  });

  it('bound → paired: the first poll carries the token once; the pairing is then gone', async () => {
    const u = await signIn();
    const p = await pair();
    await confirm(u.token, p.code);
    const first = await poll(p.pairId);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'paired', token: expect.stringMatching(/^svc_dev_[A-Za-z0-9_-]{43}$/) });
    const second = await poll(p.pairId);
    expect(second.status).toBe(404);
    const me = await local.api('GET', '/api/v1/me', { token: first.body.token });
    expect(me.body).toMatchObject({ user: { id: u.id, email: u.email }, roles: ['free'] });
  });

  it('waiting, 10 minutes passed: poll 404, confirm 410 expired', async () => {
    const u = await signIn();
    const p = await pair();
    await local.advance(10 * MINUTE - 1);
    expect((await poll(p.pairId)).body).toEqual({ status: 'waiting' });
    await local.advance(1);
    expect((await poll(p.pairId)).status).toBe(404);
    const res = await confirm(u.token, p.code);
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({ error: 'expired' });
  });

  it('bound, 10 minutes passed: poll 404, confirm 410 expired', async () => {
    const u = await signIn();
    const p = await pair();
    await confirm(u.token, p.code);
    await local.advance(10 * MINUTE);
    expect((await poll(p.pairId)).status).toBe(404);
    expect((await confirm(u.token, p.code)).status).toBe(410);
  });

  it('bound, token never collected: never listed, deleted after 2 hours', async () => {
    const u = await signIn();
    const p = await pair();
    const device = (await confirm(u.token, p.code)).body.device;
    expect((await local.api('GET', '/api/v1/devices', { token: u.token })).body).toEqual({ devices: [] });
    await local.advance(60 * MINUTE);
    expect((await local.api('GET', '/api/v1/devices', { token: u.token })).body).toEqual({ devices: [] });
    await local.advance(60 * MINUTE);
    expect((await local.api('DELETE', `/api/v1/devices/${device.id}`, { token: u.token })).body).toEqual({ deleted: false });
  });

  it('paired → deleted: DELETE answers deleted and the token stops working at once', async () => {
    const u = await signIn();
    const d = await paired(u.token);
    expect((await local.api('GET', '/api/v1/me', { token: d.token })).status).toBe(200);
    const del = await local.api('DELETE', `/api/v1/devices/${d.id}`, { token: u.token });
    expect(del.body).toEqual({ deleted: true });
    expect((await local.api('GET', '/api/v1/me', { token: d.token })).status).toBe(401);
    expect((await local.api('DELETE', `/api/v1/devices/${d.id}`, { token: u.token })).body).toEqual({ deleted: false });
  });

  it('confirm: 401 anonymous, 403 sessions_only for a device or an API key', async () => {
    const u = await signIn();
    const d = await paired(u.token);
    const p = await pair();
    expect((await app('POST', '/api/v1/devices/confirm', { code: p.code })).status).toBe(401);
    for (const token of [d.token, await local.apiKey(u.id)]) {
      const res = await confirm(token, p.code);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'sessions_only' });
    }
    expect((await poll(p.pairId)).body).toEqual({ status: 'waiting' });
  });

  it('confirm: 404 unknown_code for an unknown code and for a code another account confirmed', async () => {
    const [a, b] = [await signIn(), await signIn()];
    const unknown = await confirm(a.token, 'ZZZZ-ZZZZ');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'unknown_code' });
    const p = await pair();
    await confirm(a.token, p.code);
    expect((await confirm(b.token, p.code)).body).toMatchObject({ error: 'unknown_code' });
    expect((await confirm(b.token, 'not a code')).status).toBe(404);
    expect((await local.api('POST', '/api/v1/devices/confirm', { token: b.token, body: {} })).status).toBe(400);
  });

  it('answers 404 for an unknown pair id', async () => {
    expect((await poll('pair_unknown')).status).toBe(404);
  });

  it('lists devices newest first; a device never seen shows lastSeen = created', async () => {
    const u = await signIn();
    const t0 = await local.now();
    const first = await paired(u.token, 'First');
    await local.advance(MINUTE);
    const second = await paired(u.token, 'Second');
    const list = await local.api('GET', '/api/v1/devices', { token: u.token });
    expect(list.body).toEqual({
      devices: [
        { id: second.id, name: 'Second', created: t0 + MINUTE, lastSeen: t0 + MINUTE },
        { id: first.id, name: 'First', created: t0, lastSeen: t0 },
      ],
    });
    const other = await signIn();
    expect((await local.api('GET', '/api/v1/devices', { token: other.token })).body).toEqual({ devices: [] });
    expect((await local.api('DELETE', `/api/v1/devices/${first.id}`, { token: other.token })).body).toEqual({ deleted: false });
  });

  it('refreshes lastSeen at most every 10 minutes', async () => {
    const u = await signIn();
    const d = await paired(u.token);
    const lastSeen = async () => (await local.api('GET', '/api/v1/devices', { token: u.token })).body.devices[0].lastSeen;
    await local.advance(MINUTE);
    const seen = await local.now();
    await local.api('GET', '/api/v1/me', { token: d.token });
    expect(await lastSeen()).toBe(seen);
    await local.advance(9 * MINUTE);
    await local.api('GET', '/api/v1/me', { token: d.token });
    expect(await lastSeen()).toBe(seen);
    await local.advance(MINUTE);
    await local.api('GET', '/api/v1/me', { token: d.token });
    expect(await lastSeen()).toBe(seen + 10 * MINUTE);
  });

  it("gives a device its account's roles from stored claims, refreshed at most every 10 minutes", async () => {
    const u = await signIn();
    const d = await paired(u.token);
    const roles = async () => (await local.api('GET', '/api/v1/me', { token: d.token })).body.roles;
    expect(await roles()).toEqual(['free']);
    await local.api('PATCH', `/_local/users/${u.id}`, { body: { plan: 'premium' } });
    expect(await roles()).toEqual(['free']);
    await local.advance(10 * MINUTE);
    expect(await roles()).toEqual(['free', 'premium']);
  });

  it('keeps a device working on stored claims while the identity provider is down', async () => {
    const u = await signIn();
    const d = await paired(u.token);
    expect((await local.api('GET', '/api/v1/me', { token: d.token })).status).toBe(200);
    await local.faults({ identity: 'down' });
    try {
      await local.advance(11 * MINUTE);
      const res = await local.api('GET', '/api/v1/me', { token: d.token });
      expect(res.status).toBe(200);
      expect(res.body.user.id).toBe(u.id);
    } finally {
      await local.faults({ identity: 'up' });
    }
  });
});
