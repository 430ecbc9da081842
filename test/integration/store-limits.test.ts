import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_BODY_MAX_BYTES } from '../../shared/http/bounds';
import { anonAddresses, sessionUser } from '../support/accounts';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';
import { MARKET } from '../support/market-books';

/**
 * Issue 10 point 5: no request reaches a limit of the stores. Path parameters far longer than any id, JSON
 * nested deeper than DynamoDB's 32 levels, bodies and heads past their bounds: each is the spec's 4xx and
 * changes nothing (the account's documents read back as before).
 */
const P256DH = 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM';
const AUTH = 'tBHItJI5svbpez7KI4CCXg';
const subscription = (endpoint: string) => ({ endpoint, keys: { p256dh: P256DH, auth: AUTH } });
const deepArray = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

describe('store limits are bounded at the HTTP boundary', () => {
  let local: Local;
  let user: { id: string; token: string };
  const anon = anonAddresses();
  const as = (method: string, path: string, body?: unknown) => local.api(method, path, { token: user.token, body });

  beforeAll(async () => {
    local = await startLocal();
    user = await sessionUser(local, { plan: 'premium' });
  });
  afterAll(() => local.close());

  it('answers overlong device and pairing ids as unknown ones (not 500) and deletes nothing', async () => {
    const device = await pairDevice(local, user.id);
    for (const n of [1100, 2100, 5000]) {
      expect(await as('DELETE', `/api/v1/devices/${'d'.repeat(n)}`), `delete ${n}`).toMatchObject({ status: 200, body: { deleted: false } });
      expect(await local.api('GET', `/api/v1/devices/pair/${'p'.repeat(n)}`, { headers: anon() }), `poll ${n}`).toMatchObject({
        status: 404,
        body: { error: 'not_found' },
      });
    }
    expect(await as('DELETE', `/api/v1/devices/${encodeURIComponent('dev_\u0000')}`)).toMatchObject({ status: 200, body: { deleted: false } });
    expect((await as('GET', '/api/v1/devices')).body.devices.map((d: { id: string }) => d.id)).toEqual([device.id]);
  });

  it('answers overlong alert ids and book times as unknown ones', async () => {
    const input = { market: MARKET, item: 1, kind: 'below', value: 5 };
    expect(await as('PUT', `/api/v1/market/alerts/${'x'.repeat(3000)}`, input)).toMatchObject({ status: 404, body: { error: 'unknown_alert' } });
    expect(await as('DELETE', `/api/v1/market/alerts/${'x'.repeat(3000)}`)).toMatchObject({ status: 200, body: { deleted: false } });
    for (const at of ['9'.repeat(3000), 'abc', '1%00', '-1']) {
      expect(await as('GET', `/api/v1/ah/${MARKET}/books/${at}`), at).toMatchObject({ status: 404, body: { error: 'unknown_book' } });
    }
    // An invalid %-escape matches no route, as on API Gateway.
    expect(await as('GET', `/api/v1/ah/${MARKET}/books/%ZZ`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('refuses JSON nested deeper than the bound with 400 bad_request, keeping the stored documents', async () => {
    const boards = { dashboards: [{ id: 'main', name: 'Main', widgets: [{ id: 'w1', type: 'chart', config: { a: { b: [1, 2] } } }] }], screens: [] };
    expect((await as('PUT', '/api/v1/market/boards', boards)).status).toBe(200);
    expect((await as('PUT', '/api/v1/market/watch', { items: [1, 2] })).status).toBe(200);
    const refused = [
      ['PUT', '/api/v1/market/boards', `{"dashboards":[],"screens":[{"id":"s","name":"s","filters":${deepObject(5000)}}]}`],
      ['PUT', '/api/v1/market/boards', `{"dashboards":[{"id":"d","name":"d","widgets":[{"id":"w","type":"t","x":${deepArray(40)}}]}],"screens":[]}`],
      ['PUT', '/api/v1/market/watch', `{"items":${deepArray(10_000)}}`],
      ['PUT', '/api/v1/market/watch', `{"items":[${deepArray(40)}]}`],
      ['POST', '/api/v1/market/alerts', `{"market":"${MARKET}","item":1,"kind":"below","value":5,"note":${deepArray(100)}}`],
      [
        'PUT',
        '/api/v1/push/subscription',
        JSON.stringify({ subscription: subscription('https://push.example/deep'), prefs: { x: JSON.parse(deepArray(40)) } }),
      ],
      ['POST', '/api/v1/devices/pair', `{"name":"x","extra":${deepArray(100_000)}}`],
    ] as const;
    for (const [method, path, body] of refused) {
      const res = await local.api(method, path, {
        token: path.includes('/pair') ? undefined : user.token,
        body,
        headers: path.includes('/pair') ? anon() : {},
      });
      expect(res, `${path} ${body.slice(0, 60)}`).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    }
    expect((await as('GET', '/api/v1/market/boards')).body).toEqual(boards);
    expect((await as('GET', '/api/v1/market/watch')).body).toEqual({ items: [1, 2] });
    expect((await as('GET', '/api/v1/push/subscription')).body).toEqual({ subscriptions: [] });
  });

  it('answers a JSON body above the bound 413 too_large', async () => {
    const big = JSON.stringify({ dashboards: [], screens: [], pad: 'x'.repeat(JSON_BODY_MAX_BYTES) });
    expect(await as('PUT', '/api/v1/market/boards', big)).toMatchObject({ status: 413, body: { error: 'too_large' } });
    expect(await as('PUT', '/api/v1/market/watch', big)).toMatchObject({ status: 413, body: { error: 'too_large' } });
  });

  it('keeps push prefs as given, also JSON that DynamoDB could not store as a map', async () => {
    const prefs = { market: true, '': 1, huge: 1e300, tiny: 1e-200, nested: { '': [[], {}] } };
    const put = await as('PUT', '/api/v1/push/subscription', { subscription: subscription('https://fcm.googleapis.com/fcm/send/odd'), prefs });
    expect(put).toMatchObject({ status: 200, body: { subscription: { endpoint: 'https://fcm.googleapis.com/fcm/send/odd', prefs } } });
    expect((await as('GET', '/api/v1/push/subscription')).body.subscriptions).toEqual([
      expect.objectContaining({ endpoint: 'https://fcm.googleapis.com/fcm/send/odd', prefs }),
    ]);
  });

  it('answers query values past their bound as values naming nothing, in the route’s own terms', async () => {
    const long = (c: string) => c.repeat(3000);
    expect(await as('GET', `/api/v1/ah/${MARKET}/1/candles?from=${long('1')}`)).toMatchObject({ status: 400, body: { error: 'bad_query' } });
    expect(await as('GET', `/api/v1/items?build=${long('b')}`)).toMatchObject({ status: 400, body: { error: 'bad_build' } });
    expect(await as('GET', `/api/v1/live?market=${long('m')}`)).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    expect((await local.api('GET', `/item/1?m=${long('m')}`, { headers: anon() })).status).toBe(400);
    // A parameter no route reads is ignored, however long.
    expect((await as('GET', `/api/v1/me?x=${long('x')}`)).status).toBe(200);
  });

  it('refuses a request line and headers above API Gateway’s 10240 bytes with 431, as AWS does, for every length up to 100k', async () => {
    for (const n of [10_300, 20_000, 100_000]) {
      const res = await as('GET', `/api/v1/ah/${MARKET}/${'1'.repeat(n)}`);
      expect(res, String(n)).toMatchObject({ status: 431, body: { error: 'too_large' } });
    }
    const huge = await local.api('GET', '/api/v1/me', { token: user.token, headers: { 'x-padding': 'p'.repeat(12_000) } });
    expect(huge).toMatchObject({ status: 431, body: { error: 'too_large' } });
  });
});
