import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonAddresses } from '../support/accounts';
import { type Local, startLocal } from '../support/local';
import { DAY, MARKET, tierTokens } from '../support/market-books';

/**
 * DESIGN "Check order" on routes whose feature depends on the query (candles `res`): a missing feature is
 * 403 before any 400 of the path or the query, while a `res` that names no feature is the route's 400.
 */
describe('check order of query-dependent features', () => {
  let local: Local;
  let tiers: Awaited<ReturnType<typeof tierTokens>>;
  let noHourly: string;
  const anon = anonAddresses();
  const get = (path: string, token?: string) => local.api('GET', path, token ? { token } : { headers: anon() });

  beforeAll(async () => {
    local = await startLocal();
    tiers = await tierTokens(local);
    const u = await local.user({ plan: 'free', withhold: ['candles.hourly'] });
    noHourly = await local.session(u.id, { expiresIn: 30 * 86_400 });
  });
  afterAll(() => local.close());

  const forbidden = (feature: string) => ({ status: 403, body: { error: 'forbidden', feature } });

  it('answers a free caller 403 candles.minute for res=m1 before a bad item, market or from', async () => {
    for (const path of [
      `/api/v1/ah/${MARKET}/bad/candles?res=m1`,
      `/api/v1/ah/nowhere/1/candles?res=m1`,
      `/api/v1/ah/${MARKET}/1/candles?res=m1&from=yesterday`,
    ]) {
      expect(await get(path, tiers.free), path).toMatchObject(forbidden('candles.minute'));
    }
  });

  it('answers anonymous callers 403 candles.minute before a bad item too', async () => {
    expect(await get(`/api/v1/ah/${MARKET}/12345678901234567890/candles?res=m1`)).toMatchObject(forbidden('candles.minute'));
  });

  it('answers 403 candles.hourly for res=h1 before a bad item when the caller lacks it', async () => {
    expect(await get(`/api/v1/ah/${MARKET}/0/candles?res=h1`, noHourly)).toMatchObject(forbidden('candles.hourly'));
  });

  it('keeps a bad res a 400 bad_query (it names no feature), also for names of object properties', async () => {
    for (const res of ['x', 'constructor', 'toString', '__proto__']) {
      expect(await get(`/api/v1/ah/${MARKET}/1/candles?res=${res}`, tiers.free), res).toMatchObject({ status: 400, body: { error: 'bad_query' } });
    }
  });

  it('answers callers holding the feature with the path and query 400s', async () => {
    expect(await get(`/api/v1/ah/${MARKET}/bad/candles?res=m1`, tiers.premium)).toMatchObject({ status: 400, body: { error: 'bad_item' } });
    expect(await get(`/api/v1/ah/nowhere/1/candles?res=m1`, tiers.premium)).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    expect(await get(`/api/v1/ah/${MARKET}/1/candles?res=m1&from=x`, tiers.premium)).toMatchObject({ status: 400, body: { error: 'bad_query' } });
  });

  it('answers batch candles 403 candles.minute before bad items or a bad market, after the route’s own prices.live', async () => {
    expect(await get(`/api/v1/ah/${MARKET}/candles?res=m1&items=bad`, tiers.contributor)).toMatchObject(forbidden('candles.minute'));
    expect(await get(`/api/v1/ah/nowhere/candles?res=m1&items=1`, tiers.contributor)).toMatchObject(forbidden('candles.minute'));
    expect(await get(`/api/v1/ah/${MARKET}/candles?res=m1&items=bad`, tiers.free)).toMatchObject(forbidden('prices.live'));
    expect(await get(`/api/v1/ah/${MARKET}/candles?res=m1&items=bad`, tiers.premium)).toMatchObject({ status: 400, body: { error: 'bad_query' } });
  });

  it('still serves the candles the caller may read', async () => {
    const now = await local.now();
    const res = await get(`/api/v1/ah/${MARKET}/1/candles?res=m1&from=${now - DAY}`, tiers.premium);
    expect(res).toMatchObject({ status: 200, body: { market: MARKET, item: 1, res: 'm1', candles: [] } });
  });
});
