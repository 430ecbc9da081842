import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairDevice } from '../support/devices';
import { LiveClient } from '../support/live-client';
import { type Local, startLocal } from '../support/local';
import { MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

describe('live socket: credentials, renewals, roles, alerts and closes', () => {
  let local: Local;
  const clients: LiveClient[] = [];
  const open = async (token: string, market = MARKET) => {
    const c = new LiveClient({ base: local.base, market, token });
    clients.push(c);
    await c.connect();
    return c;
  };
  const patchUser = async (id: string, body: Record<string, unknown>) => {
    const res = await fetch(`${local.base}/_local/users/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await local.close();
  });

  it('closes a session socket with 4401 ten minutes after its token expires, telling it why first', async () => {
    const u = await local.user();
    const c = await open(await local.session(u.id, { expiresIn: 60 }));
    await local.advance(10 * MINUTE);
    await local.tick();
    expect(c.closed).toBeNull();
    await local.advance(MINUTE + 1000);
    await local.tick();
    expect(await c.waitForClose()).toMatchObject({ code: 4401 });
    expect(c.messages.at(-1)).toEqual({ t: 'error', error: 'unauthenticated' });
  });

  it('holds an API key socket for 5 minutes, renewed by auth with a key of the same user and kind', async () => {
    const u = await local.user();
    const [k1, k2] = [await local.apiKey(u.id), await local.apiKey(u.id)];
    const renewed = await open(k1);
    const lapsed = await open(k1);
    await local.advance(4 * MINUTE);
    const answer = await renewed.auth(k2);
    expect(answer).toEqual({ t: 'auth', until: (await local.now()) + 5 * MINUTE });
    await local.advance(MINUTE + 1000);
    await local.tick();
    expect(await lapsed.waitForClose()).toMatchObject({ code: 4401 });
    expect(renewed.closed).toBeNull();
  });

  it('answers bad renewals unauthenticated or unavailable, and anything else bad_message', async () => {
    const u = await local.user();
    const other = await local.user();
    const key = await local.apiKey(u.id);
    const c = await open(key);
    const next = () => c.waitForMessage((m) => m.t === 'error', { since: c.messages.length });
    let wait = next();
    c.send(JSON.stringify({ t: 'auth', token: await local.apiKey(other.id) }));
    expect(await wait).toEqual({ t: 'error', error: 'unauthenticated' });
    wait = next();
    c.send(JSON.stringify({ t: 'auth', token: await local.session(u.id) }));
    expect(await wait).toEqual({ t: 'error', error: 'unauthenticated' });
    wait = next();
    c.send(JSON.stringify({ t: 'auth', token: 'ak_not_a_key' }));
    expect(await wait).toEqual({ t: 'error', error: 'unauthenticated' });
    const fresh = await local.apiKey(u.id);
    await local.faults({ identity: 'down' });
    wait = next();
    c.send(JSON.stringify({ t: 'auth', token: fresh }));
    expect(await wait).toEqual({ t: 'error', error: 'unavailable' });
    await local.faults({ identity: 'up' });
    for (const text of ['hello', JSON.stringify({ t: 'sub', market: MARKET }), JSON.stringify({ t: 'auth' }), '[]']) {
      wait = next();
      c.send(text);
      expect(await wait).toEqual({ t: 'error', error: 'bad_message' });
    }
    expect(c.closed).toBeNull();
  });

  it('tells a device socket its new roles and closes it with 4403 once live is withheld', async () => {
    const u = await local.user({ plan: 'free' });
    const device = await pairDevice(local, u.id);
    const c = await open(device.token);
    expect(c.features).not.toContain('candles.minute');
    await patchUser(u.id, { plan: 'premium' });
    await local.advance(10 * MINUTE);
    await local.tick();
    const roles = await c.waitForMessage((m) => m.t === 'roles');
    expect(roles).toMatchObject({ t: 'roles', roles: ['free', 'premium'], features: expect.arrayContaining(['candles.minute', 'prices.live']) });
    await patchUser(u.id, { withhold: ['live'] });
    await local.advance(10 * MINUTE);
    await local.tick();
    expect(await c.waitForClose()).toMatchObject({ code: 4403 });
    expect(c.messages.at(-1)).toMatchObject({ t: 'roles', features: expect.not.arrayContaining(['live']) });
  });

  it('closes a device socket with 4401 as soon as the device is deleted', async () => {
    const u = await local.user();
    const device = await pairDevice(local, u.id);
    const c = await open(device.token);
    const keep = await open(await local.session(u.id, { expiresIn: 86_400 }));
    const del = await local.api('DELETE', `/api/v1/devices/${device.id}`, { token: await local.session(u.id) });
    expect(del.body).toEqual({ deleted: true });
    await local.settle();
    expect(await c.waitForClose()).toMatchObject({ code: 4401 });
    expect(keep.closed).toBeNull();
  });

  it("sends a fired alert to the owner's sockets on that market only", async () => {
    const u = await local.user();
    const token = await local.session(u.id, { expiresIn: 86_400 });
    const created = await local.api('POST', '/api/v1/market/alerts', { token, body: { market: MARKET, item: 1000, kind: 'below', value: 5000 } });
    expect(created.status).toBe(200);
    const here = await open(token);
    const elsewhere = await open(token, 'forever.pvp.horde.us');
    const stranger = await open(await local.session((await local.user()).id, { expiresIn: 86_400 }));
    await uploadAt(local, await uploaderKey(local), await local.now(), [[1000, 4000, 3]]);
    const msg = await here.waitForMessage((m) => m.t === 'alert');
    expect(msg).toMatchObject({ t: 'alert', alert: { id: created.body.alert.id, item: 1000, kind: 'below', last: { hits: [[1000, 4000, 3]] } } });
    expect(elsewhere.messages.some((m) => m.t === 'alert')).toBe(false);
    expect(stranger.messages.some((m) => m.t === 'alert')).toBe(false);
  });

  it('forgets a socket that answers 410 Gone when a notice is sent', async () => {
    const svc = local.runtime.operator;
    const u = await local.user();
    const ghost = await svc.connections.add({
      connectionId: 'R2hvc3RDb25uZWN0aW9u',
      market: MARKET,
      userId: u.id,
      kind: 'session',
      claims: {},
      scopes: null,
      roles: ['free'],
      features: ['live'],
      historyDays: 7,
      validUntil: null,
      connectedAt: await local.now(),
    });
    await local.settle();
    expect(await svc.connections.get(ghost.connectionId)).toBeNull();
  });
});
