import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';

const MARKET = 'forever.normal.alliance.us';
const alertInput = (over: Record<string, unknown> = {}) => ({ market: MARKET, item: 2589, kind: 'below', value: 20000, ...over });

describe('settings routes: watchlist, alerts and boards over HTTP', () => {
  let local: Local;
  const signIn = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { id: u.id, token: await local.session(u.id) };
  };
  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('answers 401 unauthenticated to anonymous callers on every settings route', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/market/watch'],
      ['PUT', '/api/v1/market/watch'],
      ['GET', '/api/v1/market/alerts'],
      ['POST', '/api/v1/market/alerts'],
      ['GET', '/api/v1/market/boards'],
      ['PUT', '/api/v1/market/boards'],
    ]) {
      const res = await local.api(method, path, { body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthenticated' });
    }
  });

  describe('watchlist', () => {
    it('is empty at first, then answers what was stored, in order', async () => {
      const { token } = await signIn();
      expect((await local.api('GET', '/api/v1/market/watch', { token })).body).toEqual({ items: [] });
      const items = [2592, 2589, 2589 + 2147483648 * 10];
      const put = await local.api('PUT', '/api/v1/market/watch', { token, body: { items } });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ items });
      expect((await local.api('GET', '/api/v1/market/watch', { token })).body).toEqual({ items });
    });

    it('answers 400 bad_request for duplicates, a bad key or a malformed body', async () => {
      const { token } = await signIn();
      for (const body of [{ items: [1, 1] }, { items: [0] }, { items: ['1'] }, { items: 5 }, {}, 'nope']) {
        const res = await local.api('PUT', '/api/v1/market/watch', { token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toMatchObject({ error: 'bad_request' });
      }
    });

    it('answers 409 too_many with the role limit above it (free 50, premium 200)', async () => {
      const free = await signIn();
      const keys = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
      expect((await local.api('PUT', '/api/v1/market/watch', { token: free.token, body: { items: keys(50) } })).status).toBe(200);
      const over = await local.api('PUT', '/api/v1/market/watch', { token: free.token, body: { items: keys(51) } });
      expect(over.status).toBe(409);
      expect(over.body).toEqual({ error: 'too_many', message: expect.any(String), limit: 50 });
      const premium = await signIn({ plan: 'premium' });
      expect((await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items: keys(200) } })).status).toBe(200);
      expect((await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items: keys(201) } })).body).toMatchObject({
        error: 'too_many',
        limit: 200,
      });
    });

    it('without the feature: reads still work, writes are 403 forbidden naming it', async () => {
      const { token } = await signIn({ withhold: ['watchlist'] });
      expect((await local.api('GET', '/api/v1/market/watch', { token })).status).toBe(200);
      const res = await local.api('PUT', '/api/v1/market/watch', { token, body: { items: [1] } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'forbidden', feature: 'watchlist' });
    });

    it('answers 405 for a method the route does not serve', async () => {
      const { token } = await signIn();
      expect((await local.api('POST', '/api/v1/market/watch', { token, body: {} })).status).toBe(405);
    });
  });

  describe('alerts', () => {
    it('creates an armed alert, lists newest first with now, replaces and deletes it', async () => {
      const { token } = await signIn();
      const now = await local.now();
      const created = await local.api('POST', '/api/v1/market/alerts', { token, body: alertInput({ name: 'Linen', note: 'for bandages' }) });
      expect(created.status).toBe(200);
      expect(created.body.alert).toEqual({
        ...alertInput(),
        name: 'Linen',
        note: 'for bandages',
        enabled: true,
        id: expect.any(String),
        created: now,
        armed: true,
        last: null,
      });
      await local.advance(1000);
      const second = (await local.api('POST', '/api/v1/market/alerts', { token, body: alertInput({ kind: 'deal', item: 0, value: 30, enabled: false }) })).body
        .alert;
      const list = await local.api('GET', '/api/v1/market/alerts', { token });
      expect(list.body).toEqual({ alerts: [second, created.body.alert], now: now + 1000 });

      const id = created.body.alert.id;
      const replaced = await local.api('PUT', `/api/v1/market/alerts/${id}`, {
        token,
        body: alertInput({ kind: 'above', value: 5, market: 'forever.rp.horde.us' }),
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.alert).toEqual({
        ...alertInput({ kind: 'above', value: 5, market: 'forever.rp.horde.us' }),
        enabled: true,
        id,
        created: now,
        armed: true,
        last: null,
      });
      expect((await local.api('GET', '/api/v1/market/alerts', { token })).body.alerts).toEqual([second, replaced.body.alert]);

      expect((await local.api('DELETE', `/api/v1/market/alerts/${id}`, { token })).body).toEqual({ deleted: true });
      expect((await local.api('DELETE', `/api/v1/market/alerts/${id}`, { token })).body).toEqual({ deleted: false });
      expect((await local.api('GET', '/api/v1/market/alerts', { token })).body.alerts).toEqual([second]);
    });

    it('answers 404 unknown_alert for a PUT of an unknown or foreign alert', async () => {
      const a = await signIn();
      const b = await signIn();
      const id = (await local.api('POST', '/api/v1/market/alerts', { token: a.token, body: alertInput() })).body.alert.id;
      for (const [token, path] of [
        [a.token, '/api/v1/market/alerts/nope'],
        [b.token, `/api/v1/market/alerts/${id}`],
      ]) {
        const res = await local.api('PUT', path, { token, body: alertInput() });
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: 'unknown_alert' });
      }
      expect((await local.api('DELETE', `/api/v1/market/alerts/${id}`, { token: b.token })).body).toEqual({ deleted: false });
      expect((await local.api('GET', '/api/v1/market/alerts', { token: b.token })).body.alerts).toEqual([]);
    });

    it('answers 400 bad_request for a body that breaks a rule', async () => {
      const { token } = await signIn();
      for (const body of [
        alertInput({ kind: 'fall', value: 100 }),
        alertInput({ item: 0 }),
        alertInput({ market: 'x' }),
        alertInput({ name: 'n'.repeat(81) }),
        'x',
      ]) {
        const res = await local.api('POST', '/api/v1/market/alerts', { token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toMatchObject({ error: 'bad_request' });
      }
    });

    it('answers 409 too_many at limit(alerts) (free: 10) and frees a place on delete', async () => {
      const { token } = await signIn();
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await local.api('POST', '/api/v1/market/alerts', { token, body: alertInput({ value: i + 1 }) })).body.alert.id);
      const over = await local.api('POST', '/api/v1/market/alerts', { token, body: alertInput() });
      expect(over.status).toBe(409);
      expect(over.body).toMatchObject({ error: 'too_many', limit: 10 });
      await local.api('DELETE', `/api/v1/market/alerts/${ids[0]}`, { token });
      expect((await local.api('POST', '/api/v1/market/alerts', { token, body: alertInput() })).status).toBe(200);
    });

    it('keeps the data when the feature is lost: listing works, writes are 403', async () => {
      const u = await signIn();
      const alert = (await local.api('POST', '/api/v1/market/alerts', { token: u.token, body: alertInput() })).body.alert;
      const patched = await fetch(`${local.base}/_local/users/${u.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ withhold: ['alerts'] }),
      });
      expect(patched.status).toBe(200);
      const token = await local.session(u.id);
      expect((await local.api('GET', '/api/v1/market/alerts', { token })).body.alerts).toEqual([alert]);
      for (const [method, path] of [
        ['POST', '/api/v1/market/alerts'],
        ['PUT', `/api/v1/market/alerts/${alert.id}`],
        ['DELETE', `/api/v1/market/alerts/${alert.id}`],
      ]) {
        const res = await local.api(method, path, { token, body: alertInput() });
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'forbidden', feature: 'alerts' });
      }
    });
  });

  describe('boards', () => {
    const doc = {
      dashboards: [{ id: 'main', name: 'Main', widgets: [{ id: 'w1', type: 'price_chart', item: 2589, span: 2 }] }],
      screens: [{ id: 'ore', name: 'Ore', filters: { class: 7 } }],
    };

    it('answers empty lists until the first PUT, then the stored document', async () => {
      const { token } = await signIn();
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual({ dashboards: [], screens: [] });
      const put = await local.api('PUT', '/api/v1/market/boards', { token, body: doc });
      expect(put.status).toBe(200);
      expect(put.body).toEqual(doc);
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual(doc);
    });

    it('answers 400, 409 too_many with limit and 413 too_large, storing nothing', async () => {
      const { token } = await signIn();
      const bad = await local.api('PUT', '/api/v1/market/boards', { token, body: { dashboards: [{ id: 'a b', name: 'x', widgets: [] }], screens: [] } });
      expect([bad.status, bad.body.error]).toEqual([400, 'bad_request']);
      const boards = Array.from({ length: 21 }, (_, i) => ({ id: `b${i}`, name: 'B', widgets: [] }));
      const many = await local.api('PUT', '/api/v1/market/boards', { token, body: { dashboards: boards, screens: [] } });
      expect([many.status, many.body.error, many.body.limit]).toEqual([409, 'too_many', 20]);
      const big = { dashboards: [{ id: 'a', name: 'A', widgets: [{ id: 'w', type: 'note', text: 'x'.repeat(70000) }] }], screens: [] };
      const large = await local.api('PUT', '/api/v1/market/boards', { token, body: big });
      expect([large.status, large.body.error]).toEqual([413, 'too_large']);
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual({ dashboards: [], screens: [] });
    });

    it('without the feature: reading works, writing is 403', async () => {
      const { token } = await signIn({ withhold: ['boards'] });
      expect((await local.api('GET', '/api/v1/market/boards', { token })).status).toBe(200);
      expect((await local.api('PUT', '/api/v1/market/boards', { token, body: doc })).body).toMatchObject({ error: 'forbidden', feature: 'boards' });
    });
  });
});
