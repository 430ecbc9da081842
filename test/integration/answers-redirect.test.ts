/**
 * Issue 13 point 3: answers past what a synchronous Lambda can return (6 MB) are written once to the files
 * bucket under `answers/v1/<cap>/…` and answered 303 to the file host; the client following the redirect
 * gets the whole answer. Small answers are never redirected. The 30-day history of a 20000-key market.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, HOUR_MS, type ManualClock } from '../../shared/clock';
import { SPILL_FROM } from '../../shared/http/answer-files';
import { BIG_KEYS, fillBigMarket } from '../support/big-market';
import { type Local, startLocal } from '../support/local';
import { tierTokens } from '../support/market-books';

const MARKET = 'forever.pvp.horde.us';
/** Hourly answers cover 7 days (`historyDays` of anonymous and free callers): 30000 keys make that past the limit. */
const WIDE = 'forever.rp.alliance.us';
const WIDE_KEYS = 30_000;
const NOW = Date.UTC(2026, 11, 2, 10, 30, 0);
const FILE = /\/cdn\/answers\/v1\/[A-Za-z0-9_-]{22}\/\d+\.json(\.gz)?$/;

describe('answers too big for a Lambda', () => {
  let local: Local;
  let premium: string;
  let free: string;
  let puts = 0;

  beforeAll(async () => {
    local = await startLocal({ clockStart: NOW - 31 * DAY_MS });
    await fillBigMarket(local.runtime.clock as ManualClock, MARKET, NOW);
    await fillBigMarket(local.runtime.clock as ManualClock, WIDE, NOW, WIDE_KEYS, 8);
    ({ premium, free } = await tierTokens(local));
    local.runtime.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const key = String((args.input as { Key?: string }).Key ?? '');
        if (context.commandName === 'PutObjectCommand' && key.startsWith('answers/')) puts++;
        return next(args);
      },
      { step: 'initialize', name: 'countAnswerPuts' },
    );
  }, 420_000);
  afterAll(() => local?.close());

  const get = (path: string, headers: Record<string, string>, redirect: 'manual' | 'follow' = 'manual') => fetch(`${local.base}${path}`, { headers, redirect });

  it('redirects the 30-day history of a 20000-key market (303 to the file host) and the followed URL is the whole answer', async () => {
    const path = `/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`;
    const auth = { authorization: `Bearer ${premium}` };
    for (const encoding of ['identity', 'gzip']) {
      const res = await get(path, { ...auth, 'accept-encoding': encoding });
      expect(res.status).toBe(303);
      const location = res.headers.get('location') ?? '';
      expect(location.startsWith(`${local.base}/cdn/answers/v1/`)).toBe(true);
      expect(location).toMatch(FILE);
      expect(location.endsWith('.gz')).toBe(encoding === 'gzip');
      expect(res.headers.get('vary')).toContain('Accept-Encoding');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const file = await fetch(location, { headers: { 'accept-encoding': encoding } });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toContain('application/json');
      expect(file.headers.get('content-encoding')).toBe(encoding === 'gzip' ? 'gzip' : null);
      expect(file.headers.get('cache-control')).toBe('private, max-age=300');
    }
    // A client that follows redirects (fetch's default) simply gets the answer.
    const followed = await get(path, { ...auth, 'accept-encoding': 'identity' }, 'follow');
    expect(followed.status).toBe(200);
    expect(followed.redirected).toBe(true);
    const text = await followed.text();
    expect(Buffer.byteLength(text)).toBeGreaterThan(SPILL_FROM);
    const body = JSON.parse(text) as { market: string; from: number; items: Array<[number, unknown[], unknown[]]>; now: number; live: boolean };
    expect(body).toMatchObject({ market: MARKET, from: dayOf(NOW) - 30, now: NOW, live: true });
    expect(body.items.length).toBeGreaterThan(BIG_KEYS * 0.9);
    expect(body.items.some(([, days]) => days.length >= 30)).toBe(true);
  }, 120_000);

  it('writes an hourly big answer once per hour: a second caller of the same restriction gets the same file', async () => {
    const path = `/api/v1/ah/${WIDE}/history`;
    const before = puts;
    const first = await get(path, { authorization: `Bearer ${free}`, 'accept-encoding': 'identity' });
    expect(first.status).toBe(303);
    const location = first.headers.get('location');
    expect(location).toMatch(FILE);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    // Anonymous callers share the free tier's restriction (7 days, hourly view).
    const second = await get(path, { 'accept-encoding': 'identity', 'x-forwarded-for': '203.0.113.9' });
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe(location);
    expect(puts - before).toBe(1);
    const file = await fetch(location ?? '');
    expect(file.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const body = (await file.json()) as { live: boolean; items: unknown[] };
    expect(body.live).toBe(false);
    expect(body.items.length).toBeGreaterThan(WIDE_KEYS * 0.9);
  }, 120_000);

  it('answers small answers directly, whatever the caller accepts', async () => {
    const res = await get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW)}`, { authorization: `Bearer ${premium}`, 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(((await res.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
  }, 60_000);

  it('deletes answer files once their hour is over (the retention sweep)', async () => {
    const res = await get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, { authorization: `Bearer ${premium}`, 'accept-encoding': 'gzip' });
    const location = res.headers.get('location') ?? '';
    expect((await fetch(location)).status).toBe(200);
    await local.advance(2 * HOUR_MS);
    await local.runtime.runSchedules(['retention']);
    expect((await fetch(location)).status).toBe(404);
  }, 120_000);
});
