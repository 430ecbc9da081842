import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../shared/domain/roles';
import { type Local, startLocal } from '../support/local';

/**
 * Issue 15, point 2: control-API errors list the allowed values (plans, fields, scopes, faults), and a key
 * made with scopes says which features it has and which of its user's features the scopes leave out.
 */
describe('local control API: errors that say what is allowed', () => {
  let local: Local;
  const call = async (method: string, path: string, body?: unknown) => local.api(method, path, { body });
  const expectBad = async (method: string, path: string, body: unknown, ...mentions: string[]) => {
    const res = await call(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('bad_request');
    for (const m of mentions) expect(res.body.message).toContain(m);
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('names the plans on a bad plan', async () => {
    await expectBad('POST', '/_local/users', { plan: 'gold' }, 'bad plan', '"free"', '"premium"');
    const u = await local.user();
    await expectBad('PATCH', `/_local/users/${u.id}`, { plan: 'gold' }, 'bad plan', '"free"', '"premium"');
  });

  it('names the features on bad grants or withheld features, and the rule of the other user fields', async () => {
    await expectBad('POST', '/_local/users', { grants: 'admin' }, 'bad grants', '"prices.live"', '"admin"');
    await expectBad('POST', '/_local/users', { withhold: [1] }, 'bad withhold', '"depth"');
    await expectBad('POST', '/_local/users', { partner: 'yes' }, 'bad partner', 'true or false');
    await expectBad('POST', '/_local/users', { contributorUntil: 'soon' }, 'bad contributorUntil', 'Unix ms');
  });

  it('names the fields a route takes when given another', async () => {
    await expectBad('POST', '/_local/users', { role: 'premium' }, 'unknown field "role"', '"plan"', '"grants"', '"withhold"');
    const u = await local.user();
    await expectBad('POST', '/_local/sessions', { userId: u.id, expires: 60 }, 'unknown field "expires"', '"expiresIn"', '"notBefore"');
    await expectBad('POST', '/_local/api-keys', { userId: u.id, scope: ['api.read'] }, 'unknown field "scope"', '"scopes"');
  });

  it('names the features on an unknown scope', async () => {
    const u = await local.user({ plan: 'premium' });
    await expectBad('POST', '/_local/api-keys', { userId: u.id, scopes: ['prices-live'] }, 'unknown scope "prices-live"', ...FEATURES.map((f) => `"${f}"`));
    await expectBad('POST', '/_local/api-keys', { userId: u.id, scopes: 'api.read' }, '"api.read"');
  });

  it("says which features a key has, and which of its user's features its scopes leave out", async () => {
    const u = await local.user({ plan: 'premium' });
    const scoped = await call('POST', '/_local/api-keys', { userId: u.id, scopes: ['api.read', 'candles.daily'] });
    expect(scoped.status).toBe(200);
    expect(scoped.body).toMatchObject({ key: expect.stringMatching(/^ak_/), scopes: ['api.read', 'candles.daily'], features: ['candles.daily', 'api.read'] });
    expect(scoped.body.outOfScope).toContain('prices.live');
    // The answer tells the truth: the service gives the key exactly those features.
    expect((await local.api('GET', '/api/v1/me', { token: scoped.body.key })).body.features).toEqual(scoped.body.features);
    const full = await call('POST', '/_local/api-keys', { userId: u.id });
    expect(full.body.features).toContain('prices.live');
    expect(full.body.outOfScope).toEqual([]);
    expect((await local.api('GET', '/api/v1/me', { token: full.body.key })).body.features).toEqual(full.body.features);
  });

  it('names the fault values and fields', async () => {
    await expectBad('POST', '/_local/faults', { merge: 'crash' }, 'merge is "crash-once" or "none", not "crash"');
    await expectBad('POST', '/_local/faults', { storage: 'sideways' }, 'storage is "up" or "down"');
    await expectBad('POST', '/_local/faults', { disk: 'down' }, 'unknown field "disk"', '"identity"', '"storage"', '"table"', '"merge"');
    expect((await call('POST', '/_local/faults', { merge: 'none' })).status).toBe(200);
  });

  it('names the clock fields', async () => {
    await expectBad('POST', '/_local/clock', { advance: 1000, by: 5 }, 'unknown field "by"', '"now"', '"advance"');
  });

  it('lists the control routes on an unknown one', async () => {
    const res = await call('GET', '/_local/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    for (const route of ['/_local/users', '/_local/api-keys', '/_local/clock', '/_local/faults']) expect(res.body.message).toContain(route);
  });
});
