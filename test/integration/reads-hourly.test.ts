import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Spec Freshness, rule by rule, with books uploaded over HTTP and the manual clock moved across minute, hour
 * and day boundaries. Anonymous requests come from distinct addresses so the per-IP rate limit stays out of
 * the way; a throwaway query parameter (`fresh`) asks for an answer the hour has not reused yet.
 */
const D0 = Math.floor(DEFAULT_START / DAY) * DAY;
const t = (h: number, m = 0) => D0 + h * HOUR + m * MINUTE;
const day0 = D0 / DAY;
const K1 = 2589;
const K2 = 2592;
const K3 = 2770;

describe('hourly view over HTTP', () => {
  let local: Local;
  let uploader: string;
  let tiers: Awaited<ReturnType<typeof tierTokens>>;
  let ip = 0;
  const get = (path: string, token?: string) => local.api('GET', path, { token, headers: token ? {} : { 'x-forwarded-for': `10.1.0.${++ip % 250}` } });
  const item = (key: number, token?: string, q = '') => get(`/api/v1/ah/${MARKET}/${key}${q}`, token);

  beforeAll(async () => {
    local = await startLocal();
    uploader = await uploaderKey(local);
    tiers = await tierTokens(local);
    await uploadAt(local, uploader, t(9, 10), [
      [K1, 100, 2],
      [K2, 200, 1],
      [K3, 300, 4],
    ]);
    await uploadAt(local, uploader, t(10, 20), [
      [K1, 110, 3],
      [K2, 190, 1],
    ]);
    await local.setClock(t(10, 40));
  });
  afterAll(() => local.close());

  it('answers a row read after the cut with the newest reading before it', async () => {
    const res = await item(K1);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ market: MARKET, item: K1, row: [K1, 100, 2, t(9, 10)], days: [[day0, 100, 100, 2]], volume: [], now: t(10, 40), live: false });
    expect(res.headers.get('cache-control')).toBe('public, max-age=1200');
    expect(res.headers.get('vary')).toBe('Authorization, Cookie');
  });

  it('answers callers with prices.live with the live row, uncached', async () => {
    const res = await item(K1, tiers.contributor);
    expect(res.body).toMatchObject({ row: [K1, 110, 3, t(10, 20)], days: [[day0, 100, 110, 3]], live: true });
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });

  it('shows an item marked gone after the cut with its last listing before it', async () => {
    expect((await item(K3)).body.row).toEqual([K3, 300, 4, t(9, 10)]);
    expect((await item(K3, tiers.premium)).body.row).toEqual([K3, null, 0, t(10, 20)]);
  });

  it('reuses the first answer of the hour per route, normalized parameters and caller restriction, with Cache-Control per request', async () => {
    const first = await item(K2);
    await uploadAt(local, uploader, t(10, 50), [
      [K1, 120, 5],
      [K2, 180, 2],
    ]);
    await local.setClock(t(10, 55));
    const again = await item(K2);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('cache-control')).toBe('public, max-age=300');
    // A free account has the anonymous restriction, so it gets the same reused body.
    expect((await item(K2, tiers.free)).body).toEqual(first.body);
    // A parameter the route does not read changes nothing: the same reused answer, as of the cut.
    const other = await item(K2, undefined, '?fresh=1');
    expect(other.body).toEqual(first.body);
    expect(other.body).toMatchObject({ row: [K2, 200, 1, t(9, 10)] });
    expect((await item(K2, tiers.contributor)).body.row).toEqual([K2, 180, 2, t(10, 50)]);
  });

  it('moves to the next cut at the top of the hour and rebuilds its day from hour candles before it', async () => {
    await uploadAt(local, uploader, t(11, 10), [
      [K1, 90, 7],
      [K3, 320, 2],
    ]);
    await local.setClock(t(11, 20));
    const res = await item(K1);
    // The 11:10 reading (a new low of 90) is after the cut: neither the row nor the day shows it.
    expect(res.body).toMatchObject({ row: [K1, 120, 5, t(10, 50)], days: [[day0, 100, 120, 5]], live: false });
    expect((await item(K1, tiers.premium)).body.days).toEqual([[day0, 90, 90, 7]]);
  });

  it('keeps an item gone before the cut gone, even when it is listed again after the cut', async () => {
    // Gone at 10:20, marked gone again by the complete 10:50 book (spec Merge rule 1), relisted at 11:10.
    expect((await item(K3)).body.row).toEqual([K3, null, 0, t(10, 50)]);
    expect((await item(K3, tiers.premium)).body.row).toEqual([K3, 320, 2, t(11, 10)]);
  });

  it('serves finished hours only in hourly h1 candles and today so far in d1', async () => {
    const h1 = await get(`/api/v1/ah/${MARKET}/${K1}/candles?res=h1`);
    expect(h1.status).toBe(200);
    expect(h1.body).toMatchObject({ res: 'h1', live: false, volume: [] });
    expect(h1.body.candles).toEqual([
      [t(9), 100, 100, 100, 100, 2],
      [t(10), 110, 120, 110, 120, 5],
    ]);
    const live = await get(`/api/v1/ah/${MARKET}/${K1}/candles?res=h1`, tiers.premium);
    expect(live.body.candles.at(-1)).toEqual([t(11), 90, 90, 90, 90, 7]);
    const d1 = await get(`/api/v1/ah/${MARKET}/${K1}/candles`);
    expect(d1.body.candles).toEqual([[t(0), 100, 120, 100, 120, 5]]);
  });

  it('answers the table as of the cut in history and market summaries', async () => {
    const history = await get(`/api/v1/ah/${MARKET}/history`);
    expect(history.body).toMatchObject({ market: MARKET, from: day0 - 7, live: false });
    expect(history.body.items).toEqual([
      [K1, [[day0, 100, 120, 100, 120, 5]], []],
      [K2, [[day0, 200, 200, 180, 180, 2]], []],
      [K3, [[day0, 300, 300, 300, 300, 4]], []],
    ]);
    const markets = await get('/api/v1/ah');
    expect(markets.body.live).toBe(false);
    expect(markets.body.markets).toEqual([{ market: MARKET, at: t(10, 50), items: 3, listed: 2, scans: 3, contributors7d: 1 }]);
    const live = await get('/api/v1/ah', tiers.contributor);
    expect(live.body.markets[0]).toMatchObject({ at: t(11, 10), items: 3, listed: 2, scans: 4, contributors7d: 1 });
    expect(live.body.markets[0].book).toMatchObject({ at: t(11, 10), complete: true, auctions: 2, entries: 2 });
  });

  it('answers the first hour of a day from the day before, across the day boundary', async () => {
    await uploadAt(local, uploader, t(24, 10), [
      [K1, 130, 1],
      [K3, 310, 1],
    ]);
    await local.setClock(t(24, 30));
    const res = await item(K1);
    expect(res.body).toMatchObject({ row: [K1, 90, 7, t(11, 10)], days: [[day0, 90, 90, 7]], live: false });
    expect(res.headers.get('cache-control')).toBe('public, max-age=1800');
    expect((await item(K1, tiers.premium)).body.days).toEqual([
      [day0, 90, 90, 7],
      [day0 + 1, 130, 130, 1],
    ]);
  });
});
