import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';
import { HOUR, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Issue 15 point 4 over real HTTP: `ETag` on hourly answers, file-backed answers and item pages, `If-None-Match`
 * answered 304 (weak comparison, lists, `W/`, `*`), never on live answers; `RateLimit-*` on metered API answers.
 */
describe('HTTP caching and rate limits', () => {
  let local: Local;
  let key: string;
  let start: number;
  let premium: string;
  let ipSeq = 0;
  const freshIp = () => `198.51.100.${++ipSeq}`;

  const get = async (path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await fetch(`${local.base}${path}`, { method, headers: { 'x-forwarded-for': freshIp(), ...headers } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const ITEM = `/api/v1/ah/${MARKET}/2589`;
  const ITEM_FILE = {
    v: 1,
    build: '1.15.7',
    source: 'integration test',
    suffixes: {},
    statNames: {},
    bonusLists: {},
    bonusTrees: {},
    items: { '2589': { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, st: 20 } },
  };

  beforeAll(async () => {
    local = await startLocal();
    start = await local.now();
    key = await uploaderKey(local);
    await uploadAt(local, key, start + 10 * MINUTE, [
      [2589, 100, 3],
      [2592, 200, 1],
    ]);
    await local.setClock(start + HOUR + 5 * MINUTE);
    await local.settle();
    premium = await local.session((await local.user({ plan: 'premium' })).id, { expiresIn: 30 * 86_400 });
  });
  afterAll(() => local.close());

  describe('ETag and If-None-Match', () => {
    it('tags an hourly answer the same on two reads of the hour and answers 304 to the tag, a list or its W/ form', async () => {
      const first = await get(ITEM);
      await local.advance(MINUTE);
      const second = await get(ITEM);
      const tag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(second.headers.get('etag')).toBe(tag);
      expect(second.text).toBe(first.text);
      for (const header of [tag!, `"nope", ${tag}`, `W/${tag}`, '*']) {
        const res = await get(ITEM, { 'if-none-match': header });
        expect(res.status, header).toBe(304);
        expect(res.text).toBe('');
        expect(res.headers.get('etag')).toBe(tag);
        expect(res.headers.get('cache-control')).toBe(second.headers.get('cache-control'));
        expect(res.headers.get('vary')).toBe('Authorization, Cookie');
      }
      const other = await get(ITEM, { 'if-none-match': '"nope", W/"other"' });
      expect(other.status).toBe(200);
      expect(other.text).toBe(first.text);
    });

    it('never tags or answers 304 to a live answer (prices.live)', async () => {
      const anon = await get(ITEM);
      const live = await get(ITEM, { authorization: `Bearer ${premium}` });
      expect(live.status).toBe(200);
      expect(JSON.parse(live.text)).toMatchObject({ live: true });
      expect(live.headers.get('etag')).toBeNull();
      for (const header of ['*', anon.headers.get('etag')!]) {
        const res = await get(ITEM, { authorization: `Bearer ${premium}`, 'if-none-match': header });
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toMatchObject({ live: true });
      }
    });

    it('tags the snapshot file per content encoding and answers 304 to each', async () => {
      const path = `/api/v1/ah/${MARKET}/snapshot`;
      const gz = await get(path, { 'accept-encoding': 'gzip' });
      const plain = await get(path, { 'accept-encoding': 'identity' });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(gz.text).toBe(plain.text);
      const [gzTag, plainTag] = [gz.headers.get('etag'), plain.headers.get('etag')];
      expect(gzTag).toMatch(/^"/);
      expect(plainTag).toMatch(/^"/);
      expect(gzTag).not.toBe(plainTag);
      expect((await get(path, { 'accept-encoding': 'gzip', 'if-none-match': gzTag! })).status).toBe(304);
      expect((await get(path, { 'accept-encoding': 'identity', 'if-none-match': plainTag! })).status).toBe(304);
      expect((await get(path, { 'accept-encoding': 'identity', 'if-none-match': gzTag! })).status).toBe(200);
    });

    it('tags the item files and a stored book file, and answers their tags with 304', async () => {
      const published = await fetch(`${local.base}/_local/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ITEM_FILE),
      });
      expect(published.status).toBe(200);
      for (const path of ['/api/v1/items', '/api/v1/items/search-index']) {
        const res = await get(path, { 'accept-encoding': 'gzip' });
        expect(res.status, path).toBe(200);
        const tag = res.headers.get('etag');
        expect(tag, path).toMatch(/^"/);
        const again = await get(path, { 'accept-encoding': 'gzip', 'if-none-match': tag! });
        expect(again.status, path).toBe(304);
        expect(again.headers.get('x-service-build')).toBe(ITEM_FILE.build);
        expect(again.headers.get('cache-control')).toBe('public, max-age=600');
      }
      const book = `/api/v1/ah/${MARKET}/books/${start + 10 * MINUTE}`;
      const auth = { authorization: `Bearer ${premium}`, 'accept-encoding': 'gzip' };
      const file = await get(book, auth);
      expect(file.status).toBe(200);
      expect(file.headers.get('cache-control')).toBe('private, max-age=86400');
      expect((await get(book, { ...auth, 'if-none-match': file.headers.get('etag')! })).status).toBe(304);
    });

    it('tags item pages per representation (HTML, Markdown) and answers each one’s tag with 304', async () => {
      const html = await get('/item/2589');
      const md = await get('/item/2589.md');
      const negotiated = await get('/item/2589', { accept: 'text/markdown' });
      const [htmlTag, mdTag] = [html.headers.get('etag'), md.headers.get('etag')];
      expect(htmlTag).toMatch(/^W\/"/);
      expect(mdTag).toMatch(/^W\/"/);
      expect(htmlTag).not.toBe(mdTag);
      expect(negotiated.headers.get('etag')).toBe(mdTag);
      // Later in the hour the page's `now` differs, nothing else: still the same (weak) tag.
      await local.advance(MINUTE);
      const again = await get('/item/2589', { 'if-none-match': htmlTag! });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(htmlTag);
      expect(again.headers.get('vary')).toBe('Accept');
      expect(again.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      expect((await get('/item/2589.md', { 'if-none-match': mdTag! })).status).toBe(304);
      expect((await get('/item/2589', { 'if-none-match': mdTag! })).status).toBe(200);
      expect((await get('/item/2589', { 'if-none-match': htmlTag! }, 'HEAD')).status).toBe(304);
    });

    it('changes the tags once the next hour’s data is out', async () => {
      const before = await get(ITEM);
      const page = await get('/item/2589');
      await uploadAt(local, key, start + HOUR + 10 * MINUTE, [
        [2589, 90, 4],
        [2592, 200, 1],
      ]);
      // Still the same hour: the hourly view does not show the new reading, so the tag stays.
      expect((await get(ITEM, { 'if-none-match': before.headers.get('etag')! })).status).toBe(304);
      await local.setClock(start + 2 * HOUR + 5 * MINUTE);
      await local.settle();
      const after = await get(ITEM, { 'if-none-match': before.headers.get('etag')! });
      expect(after.status).toBe(200);
      expect(JSON.parse(after.text).row).toEqual([2589, 90, 4, start + HOUR + 10 * MINUTE]);
      expect(after.headers.get('etag')).toMatch(/^"/);
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      const newPage = await get('/item/2589', { 'if-none-match': page.headers.get('etag')! });
      expect(newPage.status).toBe(200);
      expect(newPage.headers.get('etag')).not.toBe(page.headers.get('etag'));
    });
  });

  describe('RateLimit fields', () => {
    /** The top of a fresh minute, so no counter is shared with another test. */
    const nextMinute = async () => local.setClock((Math.floor((await local.now()) / MINUTE) + 1) * MINUTE);
    const fields = (h: Headers) => [h.get('ratelimit-limit'), h.get('ratelimit-remaining'), h.get('ratelimit-reset')];

    it('counts down to 0 for an anonymous IP, stays 0 on the 429 beside Retry-After: 60, and resets with the window', async () => {
      await nextMinute();
      const ip = freshIp();
      const headers = { 'x-forwarded-for': ip };
      for (let i = 1; i <= 60; i++) {
        const res = await fetch(`${local.base}/api/v1/me`, { headers });
        expect(res.status).toBe(200);
        expect(fields(res.headers)).toEqual(['60', String(60 - i), '60']);
        await res.text();
      }
      await local.advance(20_000);
      const over = await fetch(`${local.base}/api/v1/me`, { headers });
      expect(over.status).toBe(429);
      expect(await over.json()).toMatchObject({ error: 'rate_limited' });
      expect(over.headers.get('retry-after')).toBe('60');
      expect(fields(over.headers)).toEqual(['60', '0', '40']);
      await local.advance(40_000);
      const fresh = await fetch(`${local.base}/api/v1/me`, { headers });
      expect(fresh.status).toBe(200);
      expect(fields(fresh.headers)).toEqual(['60', '59', '60']);
    });

    it('follows the caller’s limit on 2xx and 4xx answers alike, and rides along a 304', async () => {
      await nextMinute();
      const token = await local.apiKey((await local.user({ plan: 'free' })).id);
      const auth = { authorization: `Bearer ${token}` };
      const ok = await get(ITEM, auth);
      expect(fields(ok.headers)).toEqual(['120', '119', '60']);
      const forbidden = await get(`/api/v1/ah/${MARKET}/books`, auth);
      expect(forbidden.status).toBe(403);
      expect(fields(forbidden.headers)).toEqual(['120', '118', '60']);
      const missing = await get('/api/v1/no-such-route', auth);
      expect(missing.status).toBe(404);
      expect(fields(missing.headers)).toEqual(['120', '117', '60']);
      const notModified = await get(ITEM, { ...auth, 'if-none-match': ok.headers.get('etag')! });
      expect(notModified.status).toBe(304);
      expect(fields(notModified.headers)).toEqual(['120', '116', '60']);
    });

    it('counts an anonymous caller’s public answer but sends it no RateLimit fields: the public host shares it with every anonymous caller', async () => {
      await nextMinute();
      const headers = { 'x-forwarded-for': freshIp() };
      const shared = await get(ITEM, headers);
      expect(shared.status).toBe(200);
      expect(shared.headers.get('cache-control')).toMatch(/^public, /);
      expect(fields(shared.headers)).toEqual([null, null, null]);
      const items = await get('/api/v1/items/unknown', headers);
      expect(items.headers.get('cache-control')).toBe('public, max-age=600');
      expect(fields(items.headers)).toEqual([null, null, null]);
      // Counted all the same: the address's own (private) answer shows both requests spent.
      const mine = await get('/api/v1/me', headers);
      expect(fields(mine.headers)).toEqual(['60', '57', '60']);
    });

    it('sends no RateLimit fields where nothing is counted: pages, and a refused credential', async () => {
      const page = await get('/item/2589');
      expect(page.status).toBe(200);
      expect(page.headers.get('ratelimit-limit')).toBeNull();
      const refused = await get('/api/v1/me', { authorization: 'Bearer ak_not_a_key' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('ratelimit-limit')).toBeNull();
    });
  });
});
