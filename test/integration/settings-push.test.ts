import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertMergeInput, evaluateAlerts } from '../../shared/alerts/evaluate';
import type { DayClose, RowReading } from '../../shared/domain/alerts';
import { type Local, startLocal } from '../support/local';
import { browserKeys, type PushReceiver, startPushReceiver } from '../support/push-receiver';

const MARKET = 'forever.pvp.alliance.us';
const DAY_MS = 86_400_000;

/** A merge's view: rows after the merge and day closes per key. */
function mergeInput(at: number, rows: Array<[number, number | null, number]>, closes: Record<number, DayClose[]> = {}): AlertMergeInput {
  return {
    at,
    rows: new Map<number, RowReading>(rows.map(([k, price, quantity]) => [k, { price, quantity, at }])),
    dayCloses: async (keys) => new Map(keys.filter((k) => closes[k]).map((k) => [k, closes[k]])),
  };
}

describe('Web Push routes, alert evaluation and delivery', () => {
  let local: Local;
  let rx: PushReceiver;
  let n = 0;
  const signIn = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { id: u.id, token: await local.session(u.id) };
  };
  /** Subscribes a fresh browser at a fresh receiver path. */
  const subscribe = async (token: string, prefs?: unknown) => {
    const browser = browserKeys();
    const endpoint = `${rx.base}/push/${++n}`;
    const res = await local.api('PUT', '/api/v1/push/subscription', {
      token,
      body: { subscription: { endpoint, keys: browser.keys, expirationTime: null }, prefs },
    });
    expect(res.status).toBe(200);
    return { endpoint, path: new URL(endpoint).pathname, browser };
  };
  const pushesTo = (path: string) => rx.received.filter((r) => r.path === path);
  const createAlert = async (token: string, body: Record<string, unknown>) => {
    const res = await local.api('POST', '/api/v1/market/alerts', { token, body: { market: MARKET, ...body } });
    expect(res.status).toBe(200);
    return res.body.alert;
  };

  beforeAll(async () => {
    [local, rx] = await Promise.all([startLocal(), startPushReceiver()]);
  });
  afterAll(async () => {
    await Promise.all([local.close(), rx.close()]);
  });

  describe('routes', () => {
    it('answers the VAPID public key to signed-in callers and 401 to anonymous ones', async () => {
      const { token } = await signIn();
      const key = await local.api('GET', '/api/v1/push/key', { token });
      expect(key.body).toEqual({ publicKey: local.runtime.operator.config.vapid?.publicKey });
      expect(Buffer.from(key.body.publicKey, 'base64url')).toHaveLength(65);
      expect((await local.api('GET', '/api/v1/push/key')).status).toBe(401);
    });

    it('subscribes, replaces prefs keeping created, lists own subscriptions and deletes', async () => {
      const { token } = await signIn();
      const browser = browserKeys();
      const endpoint = `${rx.base}/routes/1`;
      const now = await local.now();
      const put = await local.api('PUT', '/api/v1/push/subscription', {
        token,
        body: { subscription: { endpoint, keys: browser.keys }, prefs: { market: true, sound: 'x' } },
      });
      expect(put.body).toEqual({ subscription: { endpoint, prefs: { market: true, sound: 'x' }, created: now } });
      await local.advance(5000);
      const again = await local.api('PUT', '/api/v1/push/subscription', {
        token,
        body: { subscription: { endpoint, keys: browser.keys }, prefs: { market: false } },
      });
      expect(again.body).toEqual({ subscription: { endpoint, prefs: { market: false }, created: now } });
      expect((await local.api('GET', '/api/v1/push/subscription', { token })).body).toEqual({
        subscriptions: [{ endpoint, prefs: { market: false }, created: now }],
      });
      expect((await local.api('DELETE', '/api/v1/push/subscription', { token, body: { endpoint } })).body).toEqual({ deleted: true });
      expect((await local.api('DELETE', '/api/v1/push/subscription', { token, body: { endpoint } })).body).toEqual({ deleted: false });
      expect((await local.api('GET', '/api/v1/push/subscription', { token })).body).toEqual({ subscriptions: [] });
    });

    it('lets another account take an endpoint over', async () => {
      const a = await signIn();
      const b = await signIn();
      const { endpoint, browser } = await subscribe(a.token);
      await local.api('PUT', '/api/v1/push/subscription', { token: b.token, body: { subscription: { endpoint, keys: browser.keys } } });
      expect((await local.api('GET', '/api/v1/push/subscription', { token: a.token })).body.subscriptions).toEqual([]);
      expect((await local.api('GET', '/api/v1/push/subscription', { token: b.token })).body.subscriptions.map((s: { endpoint: string }) => s.endpoint)).toEqual(
        [endpoint],
      );
      expect((await local.api('DELETE', '/api/v1/push/subscription', { token: a.token, body: { endpoint } })).body).toEqual({ deleted: false });
    });

    it('keeps at most 10 subscriptions per account: the oldest go', async () => {
      const { token } = await signIn();
      const endpoints: string[] = [];
      for (let i = 0; i < 11; i++) {
        endpoints.push((await subscribe(token)).endpoint);
        await local.advance(1000);
      }
      const listed = (await local.api('GET', '/api/v1/push/subscription', { token })).body.subscriptions.map((s: { endpoint: string }) => s.endpoint);
      expect(listed).toEqual(endpoints.slice(1));
    });

    it('answers 400 bad_request for a bad subscription, prefs or endpoint', async () => {
      const { token } = await signIn();
      const keys = browserKeys().keys;
      for (const body of [
        {},
        { subscription: { endpoint: 'http://example.com/p', keys } },
        { subscription: { endpoint: `${rx.base}/x`, keys: { p256dh: 'AAAA', auth: keys.auth } } },
        { subscription: { endpoint: `${rx.base}/x`, keys }, prefs: { quietHours: { start: '25:00', end: '01:00', tz: 'UTC' } } },
      ]) {
        const res = await local.api('PUT', '/api/v1/push/subscription', { token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toMatchObject({ error: 'bad_request' });
      }
      expect((await local.api('DELETE', '/api/v1/push/subscription', { token, body: {} })).status).toBe(400);
    });
  });

  describe('firing and delivery', () => {
    it('fires an armed alert once, stores last, writes the fan-out record and pushes a decryptable market notification', async () => {
      const u = await signIn();
      const sub = await subscribe(u.token);
      const alert = await createAlert(u.token, { item: 2589, kind: 'below', value: 20000, name: 'Linen Cloth' });
      const now = await local.now();
      const svc = local.runtime.operator;

      const out = await evaluateAlerts(svc, MARKET, mergeInput(now - 1000, [[2589, 15050, 12]]));
      expect(out.fired).toEqual([{ userId: u.id, alert: { ...alert, armed: false, last: { at: now, hits: [[2589, 15050, 12]] } } }]);
      await local.settle();

      const pushes = pushesTo(sub.path);
      expect(pushes).toHaveLength(1);
      const [req] = pushes;
      expect(req.headers).toMatchObject({ ttl: '3600', urgency: 'normal', 'content-encoding': 'aes128gcm' });
      expect(req.headers.authorization).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${svc.config.vapid?.publicKey}$`));
      expect(JSON.parse(sub.browser.decrypt(req.body).toString())).toEqual({
        v: 1,
        kind: 'market',
        title: 'Linen Cloth: 1g 50s 50c',
        body: 'At or below your 2g threshold on PvP Alliance (US)',
        tag: 'ahf-market',
        url: `/item/2589?m=${MARKET}`,
        ts: now,
      });

      const listed = (await local.api('GET', '/api/v1/market/alerts', { token: u.token })).body.alerts;
      expect(listed).toEqual([{ ...alert, armed: false, last: { at: now, hits: [[2589, 15050, 12]] } }]);
      // The live fan-out's record of the firing, as the settings port reads it. Its stored form (the item's `kind`
      // that the stream decodes into an `alert-fired` event) is held by test/contract/changes.contract.test.ts.
      const records = await svc.settings.firedAt(MARKET, now);
      expect(records.find((r) => r.userId === u.id)).toMatchObject({ userId: u.id, market: MARKET, at: now, alert: listed[0] });

      // Still holding an hour later but not re-armed: nothing more fires.
      await local.advance(3_600_000);
      expect((await evaluateAlerts(svc, MARKET, mergeInput(now, [[2589, 15050, 12]]))).fired.filter((f) => f.userId === u.id)).toEqual([]);
    });

    it('groups alerts arriving inside the 30 s window into one group notification at its end', async () => {
      const u = await signIn();
      const sub = await subscribe(u.token);
      await createAlert(u.token, { item: 2592, kind: 'above', value: 100, name: 'Wool Cloth' });
      const svc = local.runtime.operator;
      const t0 = await local.now();
      await evaluateAlerts(svc, MARKET, mergeInput(t0, [[2592, 500, 1]]));
      await local.settle();
      expect(pushesTo(sub.path)).toHaveLength(1);

      await createAlert(u.token, { item: 4306, kind: 'supplyBelow', value: 10, name: 'Silk Cloth' });
      await createAlert(u.token, { item: 4338, kind: 'rise', value: 10, name: 'Mageweave' });
      await local.advance(10_000);
      const day = Math.floor(t0 / DAY_MS);
      const fired = await evaluateAlerts(
        svc,
        MARKET,
        mergeInput(
          t0 + 10_000,
          [
            [2592, 500, 1],
            [4306, 90, 3],
            [4338, 110, 50],
          ],
          { 4338: [[day - 1, 100]] },
        ),
      );
      expect(fired.fired.filter((f) => f.userId === u.id)).toHaveLength(2);
      await local.settle();
      expect(pushesTo(sub.path)).toHaveLength(1);

      await local.advance(20_000);
      await local.settle();
      const pushes = pushesTo(sub.path);
      expect(pushes).toHaveLength(2);
      expect(JSON.parse(sub.browser.decrypt(pushes[1].body).toString())).toEqual({
        v: 1,
        kind: 'group',
        title: '2 market alerts',
        body: expect.stringContaining('Silk Cloth'),
        tag: 'ahf-market',
        url: '/#/market/alerts',
        ts: t0 + 30_000,
      });
    });

    it('pushes a whole-market deal with its deepest hits to /market/alerts', async () => {
      const u = await signIn();
      const sub = await subscribe(u.token);
      await createAlert(u.token, { item: 0, kind: 'deal', value: 20 });
      const now = await local.now();
      const day = Math.floor(now / DAY_MS);
      const week = (price: number): DayClose[] => [1, 2, 3].map((d) => [day - d, price]);
      const out = await evaluateAlerts(
        local.runtime.operator,
        MARKET,
        mergeInput(
          now,
          [
            [10, 50, 1],
            [11, 79, 1],
            [12, 81, 1],
            [13, null, 0],
          ],
          { 10: week(100), 11: week(100), 12: week(100), 13: week(100) },
        ),
      );
      expect(out.fired.find((f) => f.userId === u.id)?.alert.last).toEqual({
        at: now,
        hits: [
          [10, 50, 1],
          [11, 79, 1],
        ],
      });
      await local.settle();
      const payload = JSON.parse(sub.browser.decrypt(pushesTo(sub.path)[0].body).toString());
      expect(payload).toMatchObject({ kind: 'market', title: '2 deals on PvP Alliance (US)', url: '/market/alerts' });
    });

    it('deletes a subscription whose push service answers 410', async () => {
      const u = await signIn();
      const sub = await subscribe(u.token);
      rx.statusFor.set(sub.path, 410);
      await createAlert(u.token, { item: 2589, kind: 'below', value: 1_000_000 });
      await evaluateAlerts(local.runtime.operator, MARKET, mergeInput(await local.now(), [[2589, 5, 1]]));
      await local.settle();
      expect(pushesTo(sub.path)).toHaveLength(1);
      expect((await local.api('GET', '/api/v1/push/subscription', { token: u.token })).body.subscriptions).toEqual([]);
    });

    it('drops pushes in quiet hours and to subscriptions that do not want market alerts', async () => {
      const u = await signIn();
      const quiet = await subscribe(u.token, { quietHours: { start: '00:00', end: '23:59', tz: 'UTC' } });
      const off = await subscribe(u.token, { market: false });
      const on = await subscribe(u.token, { quietHours: { start: '12:00', end: '13:00', tz: 'UTC' } });
      await createAlert(u.token, { item: 2589, kind: 'below', value: 1_000_000 });
      await evaluateAlerts(local.runtime.operator, MARKET, mergeInput(await local.now(), [[2589, 5, 1]]));
      await local.settle();
      expect([pushesTo(quiet.path).length, pushesTo(off.path).length, pushesTo(on.path).length]).toEqual([0, 0, 1]);
      // Held pushes are dropped, not queued: nothing arrives after the quiet hours end either.
      await local.advance(86_400_000);
      await local.settle();
      expect(pushesTo(quiet.path)).toHaveLength(0);
    });

    it('does not evaluate alerts of an account that lost the alerts feature, nor disabled alerts', async () => {
      const u = await signIn();
      const sub = await subscribe(u.token);
      const alert = await createAlert(u.token, { item: 2589, kind: 'below', value: 1_000_000 });
      await createAlert(u.token, { item: 2589, kind: 'above', value: 1, enabled: false });
      const patched = await fetch(`${local.base}/_local/users/${u.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ withhold: ['alerts'] }),
      });
      expect(patched.status).toBe(200);
      // Stored claims are refreshed from the identity provider at most every 10 minutes.
      await local.advance(10 * 60_000);
      const out = await evaluateAlerts(local.runtime.operator, MARKET, mergeInput(await local.now(), [[2589, 5, 1]]));
      expect(out.fired.filter((f) => f.userId === u.id)).toEqual([]);
      await local.settle();
      expect(pushesTo(sub.path)).toHaveLength(0);
      const listed = (await local.api('GET', '/api/v1/market/alerts', { token: await local.session(u.id) })).body.alerts;
      expect(listed.find((a: { id: string }) => a.id === alert.id)).toMatchObject({ armed: true, last: null });
    });
  });
});
