import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonAddresses, keyedUser, sessionUser } from '../support/accounts';
import { type Local, startLocal } from '../support/local';
import { bookOf } from '../support/market-books';

/**
 * Integration, black box: the spec's words on settings (watchlist, alerts, boards), alert transitions over real
 * merges, Web Push routes and item pages.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const KEY_BASE = 2147483648;

describe('spec: settings, alerts, push and item pages', () => {
  let local: Local;
  const anonHeaders = anonAddresses();
  const freshKey = (input: Record<string, unknown> = {}) => keyedUser(local, input);
  const signIn = (input: Record<string, unknown> = {}) => sessionUser(local, input);

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  describe('watchlist', () => {
    it('keeps keys in the given order at exactly the role limit, up to the 200 cap', async () => {
      const premium = await signIn({ plan: 'premium' });
      const items = Array.from({ length: 200 }, (_, i) => 5000 - i);
      expect((await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items } })).body).toEqual({ items });
      const over = await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items: [...items, 9999] } });
      expect(over).toMatchObject({ status: 409, body: { error: 'too_many', limit: 200 } });
      expect((await local.api('GET', '/api/v1/market/watch', { token: premium.token })).body).toEqual({ items });
      const empty = await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items: [] } });
      expect(empty.body).toEqual({ items: [] });
    });

    it('answers 405 method_not_allowed for methods the settings routes do not serve', async () => {
      const { token } = await signIn();
      for (const [method, path] of [
        ['POST', '/api/v1/market/watch'],
        ['DELETE', '/api/v1/market/boards'],
        ['PATCH', '/api/v1/market/alerts'],
        ['GET', '/api/v1/market/alerts/abc'],
      ]) {
        const res = await local.api(method, path, { token, body: method === 'GET' ? undefined : {} });
        expect({ method, path, status: res.status, error: res.body?.error }).toEqual({ method, path, status: 405, error: 'method_not_allowed' });
      }
    });
  });

  describe('alerts: MarketAlertInput rules', () => {
    const market = 'forever.normal.alliance.us';
    let token: string;
    const post = (body: unknown) => local.api('POST', '/api/v1/market/alerts', { token, body });
    beforeAll(async () => {
      token = (await signIn({ plan: 'premium' })).token;
    });

    it('answers the input plus {id, created, armed, last}, enabled by default, unknown fields dropped', async () => {
      const now = await local.now();
      const res = await post({ market, item: 2589, kind: 'below', value: 1, extra: 'x' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        alert: { market, item: 2589, kind: 'below', value: 1, enabled: true, id: expect.any(String), created: now, armed: true, last: null },
      });
      const named = await post({ market, item: 2589, kind: 'above', value: 5, name: 'n'.repeat(80), note: 'm'.repeat(200), enabled: false });
      expect(named.body.alert).toMatchObject({ name: 'n'.repeat(80), note: 'm'.repeat(200), enabled: false });
    });

    it("accepts every kind's value range at its bounds and refuses one past it with 400 bad_request", async () => {
      const bounds: Array<[string, number, number]> = [
        ['below', 1, 2 ** 53 - 1],
        ['above', 1, 2 ** 53 - 1],
        ['rise', 1, 1000],
        ['fall', 1, 99],
        ['supplyBelow', 0, 2 ** 31 - 1],
        ['supplyAbove', 1, 2 ** 31 - 1],
        ['deal', 1, 99],
      ];
      const ids: string[] = [];
      for (const [kind, lo, hi] of bounds) {
        for (const value of [lo, hi]) {
          const ok = await post({ market, item: 2589, kind, value });
          expect({ kind, value, status: ok.status }).toEqual({ kind, value, status: 200 });
          ids.push(ok.body.alert.id);
        }
        for (const value of [lo - 1, hi + 1, lo + 0.5]) {
          const res = await post({ market, item: 2589, kind, value });
          expect({ kind, value, status: res.status, error: res.body?.error }).toEqual({ kind, value, status: 400, error: 'bad_request' });
        }
      }
      for (const id of ids) await local.api('DELETE', `/api/v1/market/alerts/${id}`, { token });
    });

    it('refuses item 0 for every kind but deal, a bad market, name/note past their lengths and a non-boolean enabled', async () => {
      const deal = await post({ market, item: 0, kind: 'deal', value: 30 });
      expect(deal.status).toBe(200);
      await local.api('DELETE', `/api/v1/market/alerts/${deal.body.alert.id}`, { token });
      const cases: unknown[] = [
        { market, item: 0, kind: 'below', value: 5 },
        { market, item: 0, kind: 'supplyBelow', value: 5 },
        { market: 'forever.normal.alliance.eu', item: 2589, kind: 'below', value: 5 },
        { item: 2589, kind: 'below', value: 5 },
        { market, item: 2589, kind: 'under', value: 5 },
        { market, item: 65536 * KEY_BASE + 1, kind: 'below', value: 5 },
        { market, item: '2589', kind: 'below', value: 5 },
        { market, item: 2589, kind: 'below', value: '5' },
        { market, item: 2589, kind: 'below', value: 5, name: 'n'.repeat(81) },
        { market, item: 2589, kind: 'below', value: 5, note: 'm'.repeat(201) },
        { market, item: 2589, kind: 'below', value: 5, enabled: 'yes' },
        { market, item: 2589, kind: 'below', value: 5, name: 7 },
      ];
      for (const body of cases) {
        const res = await post(body);
        expect({ body, status: res.status, error: res.body?.error }).toEqual({ body, status: 400, error: 'bad_request' });
      }
    });

    it('answers {deleted: false} for an unknown id and 404 unknown_alert to a PUT of one', async () => {
      expect((await local.api('DELETE', '/api/v1/market/alerts/nope', { token })).body).toEqual({ deleted: false });
      const res = await local.api('PUT', '/api/v1/market/alerts/nope', { token, body: { market, item: 2589, kind: 'below', value: 5 } });
      expect(res).toMatchObject({ status: 404, body: { error: 'unknown_alert' } });
    });
  });

  describe('alerts: transitions over real merges', () => {
    const market = 'forever.pvp.horde.us';
    const K = 777_001;
    let owner: { id: string; token: string };
    const upload = async (listings: Array<[number, number, number]>, complete = false) => {
      const { key } = await freshKey();
      const at = (await local.now()) - 1000;
      const res = await local.api('POST', '/api/v1/ah/books', { token: key, body: bookOf(at, listings, complete, market) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await local.settle();
      return at;
    };
    const alertById = async (id: string): Promise<unknown> =>
      ((await local.api('GET', '/api/v1/market/alerts', { token: owner.token })).body.alerts as Array<{ id: string }>).find((a) => a.id === id);

    beforeAll(async () => {
      owner = await signIn({ plan: 'premium' });
    });

    it('fires an armed single-item alert, holds it once per hour, re-arms when the condition lapses, and PUT re-arms keeping last', async () => {
      const input = { market, item: K, kind: 'below', value: 100 };
      const created = await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: input });
      const id = created.body.alert.id as string;
      const t0 = await local.now();
      await upload([[K, 90, 5]]);
      const fired = await alertById(id);
      expect(fired).toMatchObject({ armed: false, last: { at: t0, hits: [[K, 90, 5]] } });
      // Still holding, not armed: unchanged.
      await local.advance(10 * MINUTE);
      await upload([[K, 95, 6]]);
      expect(await alertById(id)).toMatchObject({ armed: false, last: { at: t0, hits: [[K, 90, 5]] } });
      // Condition lapses: armed again, last kept.
      await local.advance(10 * MINUTE);
      await upload([[K, 150, 6]]);
      expect(await alertById(id)).toMatchObject({ armed: true, last: { at: t0, hits: [[K, 90, 5]] } });
      // Holds again within the hour of the last firing: not allowed, unchanged (still armed).
      await local.advance(10 * MINUTE);
      await upload([[K, 80, 7]]);
      expect(await alertById(id)).toMatchObject({ armed: true, last: { at: t0, hits: [[K, 90, 5]] } });
      // Exactly an hour after the last firing: fires.
      await local.setClock(t0 + HOUR);
      await upload([[K, 85, 8]]);
      expect(await alertById(id)).toMatchObject({ armed: false, last: { at: t0 + HOUR, hits: [[K, 85, 8]] } });
      // PUT: armed, last kept.
      const put = await local.api('PUT', `/api/v1/market/alerts/${id}`, { token: owner.token, body: { ...input, value: 50 } });
      expect(put.status).toBe(200);
      expect(put.body.alert).toMatchObject({ id, value: 50, armed: true, last: { at: t0 + HOUR, hits: [[K, 85, 8]] } });
    });

    it('supply alerts need a row: a gone row holds supplyBelow 0 with a null price; below never holds on it', async () => {
      const K2 = 777_100;
      const K3 = 777_101;
      const mk = async (body: Record<string, unknown>) =>
        (await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: { market, ...body } })).body.alert.id as string;
      const supply = await mk({ item: K2, kind: 'supplyBelow', value: 0 });
      const below = await mk({ item: K2, kind: 'below', value: 2 ** 53 - 1 });
      const noRow = await mk({ item: 777_199, kind: 'supplyBelow', value: 2 ** 31 - 1 });
      await local.advance(10 * MINUTE);
      await upload(
        [
          [K2, 10, 3],
          [K3, 10, 3],
        ],
        true,
      );
      expect(await alertById(supply)).toMatchObject({ armed: true, last: null });
      expect(await alertById(below)).toMatchObject({ armed: false });
      await local.advance(10 * MINUTE);
      const t = await local.now();
      await upload([[K3, 10, 3]], true);
      expect(await alertById(supply)).toMatchObject({ armed: false, last: { at: t, hits: [[K2, null, 0]] } });
      // `below` re-arms: a null price never holds.
      expect(await alertById(below)).toMatchObject({ armed: true });
      expect(await alertById(noRow)).toMatchObject({ armed: true, last: null });
    });

    it('rise and fall compare exactly against the close of the newest day candle before the evaluation day', async () => {
      const R = 777_200;
      const mk = async (kind: string, value: number) =>
        (await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: { market, item: R, kind, value } })).body.alert.id as string;
      await local.advance(10 * MINUTE);
      await upload([[R, 1000, 1]]);
      const [rise50, rise51, fall50] = [await mk('rise', 50), await mk('rise', 51), await mk('fall', 50)];
      // Same day: no ref yet (the candle is of the evaluation's own day).
      await local.advance(10 * MINUTE);
      await upload([[R, 5000, 1]]);
      expect(await alertById(rise50)).toMatchObject({ armed: true, last: null });
      // Next day: ref = 5000 (the day's close).
      const now = await local.now();
      await local.setClock((Math.floor(now / DAY) + 1) * DAY + HOUR);
      await upload([[R, 7500, 1]]);
      expect(await alertById(rise50)).toMatchObject({ armed: false, last: { hits: [[R, 7500, 1]] } });
      expect(await alertById(rise51)).toMatchObject({ armed: true, last: null });
      await local.advance(10 * MINUTE);
      await upload([[R, 2500, 1]]);
      expect(await alertById(fall50)).toMatchObject({ armed: false, last: { hits: [[R, 2500, 1]] } });
    });
  });

  describe('alerts: whole-market deal over real merges', () => {
    const market = 'forever.rp.horde.us';
    const A = 880_001;
    const B = 880_002;
    const upload = async (at: number, a: number, b: number) => {
      const { key } = await freshKey();
      const res = await local.api('POST', '/api/v1/ah/books', {
        token: key,
        body: bookOf(
          at,
          [
            [A, a, 2],
            [B, b, 3],
          ],
          false,
          market,
        ),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await local.settle();
    };

    it('fires for items newly holding, deepest discount first; remembers the set; PUT forgets it and keeps last', async () => {
      const owner = await signIn({ plan: 'premium' });
      const c = await local.now();
      const d0 = Math.floor(c / DAY);
      // Day closes of 100 on three days: d0 - 1, d0, d0 + 1.
      await upload(c - DAY + MINUTE, 100, 100);
      await upload(c - 1000, 100, 100);
      await local.setClock((d0 + 1) * DAY + HOUR);
      await upload((d0 + 1) * DAY + HOUR - 1000, 100, 100);
      await local.setClock((d0 + 2) * DAY + HOUR);
      const input = { market, item: 0, kind: 'deal', value: 50 };
      const created = await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: input });
      expect(created.body.alert).toMatchObject({ item: 0, armed: true, last: null });
      const id = created.body.alert.id as string;
      const get = async (): Promise<unknown> =>
        ((await local.api('GET', '/api/v1/market/alerts', { token: owner.token })).body.alerts as Array<{ id: string }>).find((a) => a.id === id);
      const t1 = await local.now();
      await upload(t1 - 1000, 40, 90);
      expect(await get()).toMatchObject({ armed: true, last: { at: t1, hits: [[A, 40, 2]] } });
      await local.advance(10 * MINUTE);
      const t2 = await local.now();
      // B now holds exactly at the bound (50 * 100 <= 100 * 50); A is remembered.
      await upload(t2 - 1000, 45, 50);
      expect(await get()).toMatchObject({ armed: true, last: { at: t2, hits: [[B, 50, 3]] } });
      await local.advance(10 * MINUTE);
      await upload((await local.now()) - 1000, 45, 50);
      expect(await get()).toMatchObject({ armed: true, last: { at: t2, hits: [[B, 50, 3]] } });
      const put = await local.api('PUT', `/api/v1/market/alerts/${id}`, { token: owner.token, body: input });
      expect(put.body.alert).toMatchObject({ armed: true, last: { at: t2, hits: [[B, 50, 3]] } });
      await local.advance(10 * MINUTE);
      const t3 = await local.now();
      await upload(t3 - 1000, 45, 50);
      expect(await get()).toMatchObject({
        armed: true,
        last: {
          at: t3,
          hits: [
            [A, 45, 2],
            [B, 50, 3],
          ],
        },
      });
    }, 180_000);
  });

  describe('boards', () => {
    let token: string;
    const put = (body: unknown) => local.api('PUT', '/api/v1/market/boards', { token, body });
    const widget = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'price-chart_1', ...extra });
    beforeAll(async () => {
      token = (await signIn()).token;
    });

    it('accepts every rule at its bound: 40-char ids, 60-char names, 24 widgets, 20 dashboards, 50 screens', async () => {
      const id40 = 'A'.repeat(39) + '_';
      const doc = {
        dashboards: [
          { id: id40, name: 'n'.repeat(60), widgets: Array.from({ length: 24 }, (_, i) => widget(`w${i}`, { cfg: { k: i } })) },
          ...Array.from({ length: 19 }, (_, i) => ({ id: `b${i}`, name: 'b', widgets: [widget('w0')] })),
        ],
        screens: Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, name: 's', filters: { q: i } })),
      };
      const res = await put(doc);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual(doc);
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual(doc);
    });

    it('answers 400 bad_request one step past a rule, 409 too_many with limit past the counts', async () => {
      const board = (over: Record<string, unknown>) => ({ dashboards: [{ id: 'b', name: 'b', widgets: [], ...over }], screens: [] });
      const bad: unknown[] = [
        board({ id: 'A'.repeat(41) }),
        board({ id: 'a b' }),
        board({ id: '' }),
        board({ name: '' }),
        board({ name: 'n'.repeat(61) }),
        board({ widgets: Array.from({ length: 25 }, (_, i) => widget(`w${i}`)) }),
        board({ widgets: [widget('w'), widget('w')] }),
        board({ widgets: [{ id: 'w', type: 'Price' }] }),
        board({ widgets: [{ id: 'w', type: 'x'.repeat(33) }] }),
        board({ widgets: [{ id: 'w' }] }),
        board({ widgets: [{ type: 'x' }] }),
        board({ widgets: ['x'] }),
        {
          dashboards: [
            { id: 'b', name: 'b', widgets: [] },
            { id: 'b', name: 'c', widgets: [] },
          ],
          screens: [],
        },
        { dashboards: [], screens: [{ id: 's', name: 's' }] },
        { dashboards: [] },
        [],
      ];
      for (const body of bad) {
        const res = await put(body);
        expect({ body, status: res.status, error: res.body?.error }).toEqual({ body, status: 400, error: 'bad_request' });
      }
      // The same widget id on two boards is fine.
      const twin = {
        dashboards: [
          { id: 'a', name: 'a', widgets: [widget('w')] },
          { id: 'b', name: 'b', widgets: [widget('w')] },
        ],
        screens: [],
      };
      expect((await put(twin)).status).toBe(200);
      const dash21 = { dashboards: Array.from({ length: 21 }, (_, i) => ({ id: `b${i}`, name: 'b', widgets: [] })), screens: [] };
      expect(await put(dash21)).toMatchObject({ status: 409, body: { error: 'too_many', limit: 20 } });
      const screens51 = { dashboards: [], screens: Array.from({ length: 51 }, (_, i) => ({ id: `s${i}`, name: 's', filters: {} })) };
      expect(await put(screens51)).toMatchObject({ status: 409, body: { error: 'too_many', limit: 50 } });
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual(twin);
    });

    it('stores exactly 65536 bytes of JSON and answers 413 too_large at 65537', async () => {
      const docOf = (len: number) => ({ dashboards: [], screens: [{ id: 's', name: 's', filters: { p: 'x'.repeat(len) } }] });
      const overhead = JSON.stringify(docOf(0)).length;
      const exact = docOf(65536 - overhead);
      expect(JSON.stringify(exact).length).toBe(65536);
      expect((await put(exact)).status).toBe(200);
      expect(await put(docOf(65537 - overhead))).toMatchObject({ status: 413, body: { error: 'too_large' } });
    });
  });

  describe('Web Push routes', () => {
    it('answers 401 to anonymous callers on every push route', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/push/key'],
        ['GET', '/api/v1/push/subscription'],
        ['PUT', '/api/v1/push/subscription'],
        ['DELETE', '/api/v1/push/subscription'],
      ]) {
        const res = await local.api(method, path, { body: method === 'GET' ? undefined : {}, headers: anonHeaders() });
        expect({ method, status: res.status, error: res.body?.error }).toEqual({ method, status: 401, error: 'unauthenticated' });
      }
    });

    it('answers {deleted: false} for an endpoint the account does not hold, and 400 without an endpoint', async () => {
      const { token } = await signIn();
      expect((await local.api('DELETE', '/api/v1/push/subscription', { token, body: { endpoint: 'https://push.example/none' } })).body).toEqual({
        deleted: false,
      });
      expect(await local.api('DELETE', '/api/v1/push/subscription', { token, body: {} })).toMatchObject({ status: 400, body: { error: 'bad_request' } });
      expect(await local.api('PUT', '/api/v1/push/subscription', { token, body: {} })).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    });
  });

  describe('item pages and downloads', () => {
    it('caches an item page until the next hour, in seconds rounded up', async () => {
      const now = await local.now();
      const next = (Math.floor(now / HOUR) + 1) * HOUR;
      const res = await fetch(`${local.base}/item/2589?m=forever.normal.alliance.us`, { headers: anonHeaders() });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe(`public, max-age=${Math.ceil((next - now) / 1000)}`);
      expect(res.headers.get('vary')).toMatch(/Accept/);
    });

    it('redirects the desktop download with 302 under {cdn_base}releases/downloads/', async () => {
      const res = await fetch(`${local.base}/api/v1/downloads/desktop/latest`, { redirect: 'manual', headers: anonHeaders() });
      expect(res.status).toBe(302);
      const cfg = (await local.api('GET', '/api/v1/config', { headers: anonHeaders() })).body;
      expect(res.headers.get('location')).toMatch(new RegExp(`^${cfg.cdnBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}releases/downloads/.+`));
    });
  });
});
