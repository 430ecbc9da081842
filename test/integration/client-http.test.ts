/**
 * Issue 15.1: the typed client (shared/client) against the local runtime over real HTTP. Every JSON answer it
 * receives is checked against the zod answer schema its route is documented with in /openapi.full.json, so
 * the document, the client's types and the service cannot drift apart; errors arrive as ApiError with the
 * spec's code. The full document is served and listed in the API catalog.
 */
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type HttpClient, httpClient } from '../../shared/client';
import { FULL_DOCS } from '../../shared/pages/openapi-full';
import type { RouteKey } from '../../shared/topology';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET as OTHER_MARKET } from '../support/market-books';

const MARKET = 'forever.pvp.horde.us';
const D0 = Math.floor(DEFAULT_START / DAY) * DAY;
const AT = D0 + 2 * HOUR;

describe('the typed HTTP client', () => {
  let local: Local;
  const seen = new Set<string>();
  const drift: string[] = [];
  /** Checks an answer against its route's documented schema; extra fields are drift too. */
  const onAnswer = (routeKey: string, answer: unknown) => {
    seen.add(routeKey);
    const doc = FULL_DOCS[routeKey as RouteKey] as { answer?: { safeParse(v: unknown): { success: boolean; data?: unknown; error?: unknown } } };
    const r = doc.answer?.safeParse(answer);
    if (!r) drift.push(`${routeKey}: no answer schema`);
    else if (!r.success) drift.push(`${routeKey}: ${JSON.stringify(r.error)}`);
    // Parsing drops fields a schema does not name: an answer that changes is one with an undocumented field.
    else if (!isDeepStrictEqual(r.data, answer)) drift.push(`${routeKey}: undocumented fields in ${JSON.stringify(answer).slice(0, 300)}`);
  };
  let anon: HttpClient;
  let uploader: HttpClient;
  let premium: HttpClient;
  let free: HttpClient;
  let ip = 0;
  const client = (opts: { apiKey?: string; token?: string } = {}) =>
    httpClient({ base: local.base, ...opts, origin: local.base, onAnswer, headers: { 'x-forwarded-for': `10.9.0.${++ip}` } });

  beforeAll(async () => {
    local = await startLocal();
    const [u, p, f] = await Promise.all([local.user({ plan: 'free' }), local.user({ plan: 'premium' }), local.user({ plan: 'free' })]);
    anon = client();
    uploader = client({ apiKey: await local.apiKey(u.id) });
    premium = client({ token: await local.session(p.id, { expiresIn: 30 * 86_400 }) });
    free = client({ token: await local.session(f.id, { expiresIn: 30 * 86_400 }) });
    await local.setClock(AT);
  });
  afterAll(async () => {
    await local?.close();
  });

  it('uploads a book and reads it back through every market read, each answer matching its schema', async () => {
    const entries: [number, number, number, number, number][] = [
      [25, 500, 10, 1, 2],
      [25, 600, 5, 3, 1],
      [100, 800, 1, 3, 1],
    ];
    const up = await uploader.uploadBook({ market: MARKET, at: AT, complete: true, auctions: 4, entries });
    expect(up).toMatchObject({ credited: false, reason: 'too_small' });
    await local.settle();

    const markets = await premium.markets();
    expect(markets.live).toBe(true);
    expect(markets.markets.find((s) => s.market === MARKET)).toMatchObject({ at: AT, items: 2, listed: 2 });
    const item = await premium.item(MARKET, 25);
    expect(item.row).toEqual([25, 500, 25, AT]);
    expect((await premium.itemCandles(MARKET, 25, { res: 'h1' })).candles).toEqual([[AT, 500, 500, 500, 500, 25]]);
    expect((await premium.batchCandles(MARKET, { items: [100, 25] })).items.map(([k]) => k)).toEqual([100, 25]);
    expect((await premium.table(MARKET, { since: 0 })).rows).toHaveLength(2);
    expect((await premium.intraday(MARKET)).items.map(([k]) => k)).toEqual([25, 100]);
    expect((await premium.history(MARKET)).items.map(([k]) => k)).toEqual([25, 100]);
    expect((await premium.itemBook(MARKET, 25)).entries).toEqual([
      [500, 10, 1, 2],
      [600, 5, 3, 1],
    ]);
    const books = await premium.books(MARKET);
    expect(books.books.map((b) => b.at)).toEqual([AT]);
    expect((await premium.bookFile(MARKET, AT)).entries).toEqual(entries);
    expect((await premium.files(MARKET)).market).toBe(MARKET);
    expect((await anon.config()).env).toBe('dev');
    expect((await anon.unknownItems()).items).toEqual([25, 100]);
    // No item data is published in a fresh local runtime: the documented 404.
    await expect(anon.itemRecord(25)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect((await uploader.reportItems({ items: [[25, 'Linen Cloth', 1, 0, 0]] })).added).toBe(1);
    expect((await uploader.contributions()).scans).toHaveLength(1);
    expect(drift).toEqual([]);
  });

  it('gzips the book it uploads (Content-Encoding: gzip), which the service takes and stores as sent', async () => {
    const sent: { headers: Headers; body: Uint8Array }[] = [];
    const recording: typeof fetch = async (input, init) => {
      if (init?.method === 'POST') sent.push({ headers: new Headers(init.headers), body: new Uint8Array(init.body as Uint8Array) });
      return fetch(input, init);
    };
    const u = await local.user({ plan: 'free' });
    const c = httpClient({ base: local.base, apiKey: await local.apiKey(u.id), fetch: recording, onAnswer, headers: { 'x-forwarded-for': `10.9.0.${++ip}` } });
    const entries = Array.from({ length: 5000 }, (_, i): [number, number, number, number, number] => [1000 + i, 100 + (i % 97), 1 + (i % 20), 3, 1]);
    const book = { market: OTHER_MARKET, at: AT, complete: true, auctions: 5000, entries };
    expect(await c.uploadBook(book)).toMatchObject({ at: AT });
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.get('content-encoding')).toBe('gzip');
    expect(sent[0].headers.get('content-type')).toBe('application/json');
    expect([...sent[0].body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const json = gunzipSync(sent[0].body);
    expect(JSON.parse(json.toString('utf8'))).toEqual(book);
    expect(sent[0].body.length).toBeLessThan(json.length / 3);
    await local.settle();
    expect((await premium.bookFile(OTHER_MARKET, AT)).entries).toEqual(entries);
    expect((await premium.item(OTHER_MARKET, 1000)).row).toEqual([1000, 100, 1, AT]);
    expect(drift).toEqual([]);
  });

  it('keeps settings and devices through the client', async () => {
    expect((await premium.putWatchlist([100, 25])).items).toEqual([100, 25]);
    expect((await premium.watchlist()).items).toEqual([100, 25]);
    const { alert } = await premium.createAlert({ market: MARKET, item: 25, kind: 'below', value: 450, name: 'Linen' });
    expect(alert).toMatchObject({ enabled: true, armed: true, last: null });
    expect((await premium.replaceAlert(alert.id, { market: MARKET, item: 25, kind: 'above', value: 900 })).alert.kind).toBe('above');
    expect((await premium.alerts()).alerts.map((a) => a.id)).toEqual([alert.id]);
    expect(await premium.deleteAlert(alert.id)).toEqual({ deleted: true });
    const boards = { dashboards: [{ id: 'main', name: 'Main', widgets: [{ id: 'w1', type: 'chart', item: 25 }] }], screens: [] };
    expect(await premium.putBoards(boards)).toEqual(boards);
    expect(await premium.boards()).toEqual(boards);
    expect((await premium.me()).features).toContain('prices.live');
    expect(await premium.pushKey()).toHaveProperty('publicKey');
    expect((await premium.pushSubscriptions()).subscriptions).toEqual([]);

    const pairing = await anon.pairDevice('Laptop');
    expect(await anon.pollPairing(pairing.pairId)).toEqual({ status: 'waiting' });
    expect((await premium.confirmDevice(pairing.code)).device.name).toBe('Laptop');
    const polled = await anon.pollPairing(pairing.pairId);
    expect(polled.status).toBe('paired');
    const devices = await premium.devices();
    expect(devices.devices.map((d) => d.name)).toEqual(['Laptop']);
    expect(await premium.deleteDevice(devices.devices[0].id)).toEqual({ deleted: true });
    expect((await anon.updateManifest()).version).toEqual(expect.any(String));
    expect(await anon.desktopDownload()).toMatch(/releases\/downloads\//);
    expect(drift).toEqual([]);
  });

  it('throws ApiError with the spec code, status and fields', async () => {
    const fail = async (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => (e instanceof ApiError ? { status: e.status, body: e.body } : e),
      );
    expect(await fail(premium.batchCandles(MARKET, { items: [25, 25] }))).toMatchObject({ status: 400, body: { error: 'bad_query' } });
    expect(await fail(premium.itemCandles(MARKET, 25, { res: 'x1' as 'd1' }))).toMatchObject({ status: 400, body: { error: 'bad_query' } });
    expect(await fail(premium.item('forever.pvp.horde.eu', 25))).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    expect(await fail(free.table(MARKET))).toEqual({ status: 403, body: { error: 'forbidden', message: expect.any(String), feature: 'prices.live' } });
    expect(await fail(premium.createAlert({ market: MARKET, item: 0, kind: 'below', value: 5 }))).toMatchObject({
      status: 400,
      body: { error: 'bad_request' },
    });
    expect(await fail(premium.putWatchlist([25, 25]))).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    expect(await fail(anon.me().then(() => anon.devices()))).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
  });

  it('serves /openapi.full.json, listed in the API catalog beside the integration subset', async () => {
    const doc = (await (await fetch(`${local.base}/openapi.full.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/ah/books', '/api/v1/market/alerts', '/item/{key}', '/openapi.full.json']));
    const catalog = (await (await fetch(`${local.base}/.well-known/api-catalog`)).json()) as { linkset: { 'service-desc': { href: string }[] }[] };
    expect(catalog.linkset[0]['service-desc'].map((l) => l.href)).toEqual([`${local.base}/openapi.json`, `${local.base}/openapi.full.json`]);
    expect(await (await fetch(`${local.base}/llms.txt`)).text()).toContain(`${local.base}/openapi.full.json`);
  });

  it('reached most JSON routes of the API through the client', () => {
    expect(seen.size).toBeGreaterThanOrEqual(33);
  });
});
