import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../shared/domain/roles';
import { type Local, startLocal } from '../support/local';
import { DAY, MARKET } from '../support/market-books';

/**
 * Issue 23 point 9, over real HTTP: scopes mean what they say. A key made with `scopes: []` has no feature (an
 * empty list names none); a key made without `scopes` keeps every feature of its user (DESIGN: the control API);
 * a scoped key's `historyDays` and capability answers (`/me` limits, `caps` of the files answer, the history
 * route's window) follow its narrowed features: `historyDays` of 90 goes with contributor's features.
 */
describe('API key scopes', () => {
  let local: Local;
  let contributor: { id: string };
  let today: number;

  beforeAll(async () => {
    local = await startLocal();
    const now = await local.now();
    today = Math.floor(now / DAY);
    contributor = await local.user({ plan: 'free', contributorUntil: now + 14 * DAY });
  });
  afterAll(() => local.close());

  const me = async (key: string) => local.api('GET', '/api/v1/me', { token: key });

  it('gives a key made with an empty scope list no feature: reads and uploads are 403', async () => {
    const premium = await local.user({ plan: 'premium' });
    const key = await local.apiKey(premium.id, []);
    expect((await me(key)).body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
    expect((await local.api('GET', `/api/v1/ah/${MARKET}/history`, { token: key })).body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
    const upload = await local.api('POST', '/api/v1/items/seen', { token: key, body: { items: [[2589, 'Linen Cloth', 1, 0, 0]] } });
    expect(upload.status).toBe(403);
    expect(upload.body).toMatchObject({ error: 'forbidden', feature: 'api.upload' });
    // Public data stays public for it, as for anyone.
    expect((await local.api('GET', `/api/v1/ah/${MARKET}/snapshot`, { token: key })).status).not.toBe(403);
  });

  it('keeps every feature of the user for a key made without scopes', async () => {
    const premium = await local.user({ plan: 'premium' });
    const session = await local.session(premium.id);
    const key = await local.apiKey(premium.id);
    const [byKey, bySession] = [(await me(key)).body, (await me(session)).body];
    expect(byKey.features).toEqual(bySession.features);
    expect(byKey.limits).toEqual(bySession.limits);
    expect(byKey.features).toEqual(expect.arrayContaining(['prices.live', 'candles.minute', 'depth', 'books']));
    // Its verification answer names every feature, the way a key with all of them is made at the provider.
    expect(FEATURES.filter((f) => f !== 'admin').every((f) => byKey.features.includes(f))).toBe(true);
  });

  it("gives a contributor's key without prices.live or depth the free historyDays and no contributor caps", async () => {
    const narrow = await local.apiKey(contributor.id, ['api.read', 'prices.live', 'books', 'candles.daily']);
    const full = await local.apiKey(contributor.id, ['api.read', 'prices.live', 'depth', 'books', 'candles.daily', 'candles.hourly', 'live']);
    const [n, f] = [(await me(narrow)).body, (await me(full)).body];
    expect(n.features).toEqual(['prices.live', 'candles.daily', 'books', 'api.read']);
    expect(n.limits).toMatchObject({ historyDays: 7, watchlist: 0, alerts: 0 });
    expect(f.limits.historyDays).toBe(90);

    // The files answer hands out the capped hour copies (`h1` caps) only with historyDays above 7.
    const filesOf = async (key: string) => (await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: key })).body;
    const [nf, ff] = [await filesOf(narrow), await filesOf(full)];
    expect(ff.caps).toHaveProperty('h1');
    expect(nf.caps).not.toHaveProperty('h1');
    expect(nf.caps).not.toHaveProperty('d1');

    // The history route clamps `from` to the key's historyDays.
    const history = async (key: string) => (await local.api('GET', `/api/v1/ah/${MARKET}/history?from=${today - 60}`, { token: key })).body;
    expect((await history(full)).from).toBe(today - 60);
    expect((await history(narrow)).from).toBeGreaterThan(today - 8);
  });

  it('answers watchlist and alert writes of a key without those scopes 403, whatever the user may do', async () => {
    const key = await local.apiKey(contributor.id, ['api.read']);
    const put = await local.api('PUT', '/api/v1/market/watch', { token: key, body: { items: [2589] } });
    expect(put.body).toMatchObject({ error: 'forbidden', feature: 'watchlist' });
    expect((await me(key)).body.limits).toMatchObject({ watchlist: 0, alerts: 0, historyDays: 7 });
  });
});
