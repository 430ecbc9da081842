import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondsToNextHour } from '../../shared/clock';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

/** Integration: item pages, discovery documents and icons over real HTTP (GET and HEAD). */

const M = 'forever.normal.alliance.us';
const FILE = {
  v: 1,
  build: '1.15.7',
  source: 'integration test',
  suffixes: {},
  statNames: {},
  bonusLists: {},
  bonusTrees: {},
  items: {
    '2589': { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01', st: 20 },
    '2592': { n: 'Wool Cloth', q: 1, il: 15, c: 7, sc: 5 },
  },
};
const WEBP = Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00', 'latin1');

describe('pages', () => {
  let local: Local;
  let ipSeq = 0;
  const page = async (path: string, init: { method?: string; accept?: string } = {}) => {
    const headers: Record<string, string> = { 'x-forwarded-for': `192.0.2.${++ipSeq % 250}` };
    if (init.accept) headers.accept = init.accept;
    const res = await fetch(`${local.base}${path}`, { method: init.method ?? 'GET', headers, redirect: 'manual' });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const ahfItem = (html: string) => JSON.parse(/<script type="application\/json" id="ahf-item">(.*?)<\/script>/s.exec(html)![1]);
  const put = (key: string, body: Buffer | string, extra: Record<string, string> = {}) =>
    local.runtime.s3.send(new PutObjectCommand({ Bucket: local.runtime.bucketName, Key: key, Body: body, ...extra }));

  beforeAll(async () => {
    local = await startLocal();
    const res = await fetch(`${local.base}/_local/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(FILE) });
    expect(res.status).toBe(200);
  });
  afterAll(() => local.close());

  describe('item pages', () => {
    it('render a valid key with no observations, saying no observed price is available', async () => {
      const now = await local.now();
      const res = await page('/item/2589');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('vary')).toBe('Accept');
      expect(res.headers.get('cache-control')).toBe(`public, max-age=${secondsToNextHour(now)}`);
      expect(res.text).toContain('<h1>');
      expect(res.text).toContain('No observed price is available');
      expect(ahfItem(res.text)).toEqual({ market: M, key: 2589, item: FILE.items['2589'], row: null, days: [], now });
    });

    it('answer Markdown for an explicit text/markdown, and at <key>.md; HTML wins a tie', async () => {
      const md = await page('/item/2589', { accept: 'text/markdown' });
      expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(md.headers.get('vary')).toBe('Accept');
      expect(md.text).toMatch(/^# Linen Cloth\n/);
      expect(md.text).toContain('No observed price is available');
      const dotMd = await page('/item/2589.md');
      expect(dotMd.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(dotMd.text).toBe(md.text);
      const tie = await page('/item/2589', { accept: 'text/markdown, text/html' });
      expect(tie.headers.get('content-type')).toBe('text/html; charset=utf-8');
    });

    it('accept any name slug and a market in m', async () => {
      const res = await page('/item/2592/wool-cloth?m=forever.rp.horde.us');
      expect(res.status).toBe(200);
      expect(ahfItem(res.text)).toMatchObject({ market: 'forever.rp.horde.us', key: 2592, item: { n: 'Wool Cloth' } });
      const unknown = await page('/item/123456');
      expect(unknown.status).toBe(200);
      expect(ahfItem(unknown.text)).toMatchObject({ key: 123456, item: null });
    });

    it('answer HEAD with the same status and headers and no body', async () => {
      for (const path of ['/item/2589', '/item/abc', '/docs/api/reference', '/llms.txt']) {
        const [get, head] = [await page(path), await page(path, { method: 'HEAD' })];
        expect(head.status).toBe(get.status);
        expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
        expect(head.headers.get('cache-control')).toBe(get.headers.get('cache-control'));
        expect(head.text).toBe('');
      }
    });

    it('answer 404 for malformed item paths and 400 for an invalid market; Markdown errors link to discovery and docs', async () => {
      for (const path of ['/item/abc', '/item/0', '/item/12345678901234567', '/item/2589.md/slug']) expect((await page(path)).status).toBe(404);
      const md = await page('/item/abc', { accept: 'text/markdown' });
      expect(md.status).toBe(404);
      expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(md.text).toContain(`${local.base}/docs/api/reference.md`);
      expect(md.text).toContain(`${local.base}/.well-known/api-catalog`);
      const bad = await page('/item/2589?m=forever.normal.alliance.eu', { accept: 'text/markdown' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('bad_market');
      expect(bad.text).toContain(`${local.base}/llms.txt`);
    });

    it('never answer unknown pages with a successful shell', async () => {
      for (const path of ['/item', '/item/2589/a/b', '/market/alerts', '/nothing-here']) {
        const res = await page(path);
        expect(res.status).toBe(404);
        expect(res.text).not.toContain('<html');
      }
    });

    it('show the anonymous hourly view, for signed-in visitors too: price in title, description and og: meta, row and days in ahf-item', async () => {
      const d0 = Math.floor(DEFAULT_START / DAY) * DAY;
      const day0 = d0 / DAY;
      const uploader = await uploaderKey(local);
      await uploadAt(local, uploader, d0 + 9 * HOUR + 10 * MINUTE, [[2589, 12345, 400]]);
      await uploadAt(local, uploader, d0 + 10 * HOUR + 20 * MINUTE, [[2589, 99999, 7]]);
      await local.setClock(d0 + 10 * HOUR + 40 * MINUTE);
      const premium = await local.session((await local.user({ plan: 'premium' })).id, { expiresIn: 86_400 });
      for (const headers of [{}, { authorization: `Bearer ${premium}` }] as Array<Record<string, string>>) {
        const res = await fetch(`${local.base}/item/2589/linen-cloth`, { headers });
        const html = await res.text();
        expect(html).toMatch(/<title>Linen Cloth: 1g 23s 45c on Normal Alliance \(US\)<\/title>/);
        expect(html).toMatch(/<meta name="description" content="[^"]*1g 23s 45c/);
        expect(html).toMatch(/<meta property="og:title" content="[^"]*1g 23s 45c/);
        expect(html).toContain('400 listed');
        expect(ahfItem(html)).toMatchObject({ row: [2589, 12345, 400, d0 + 9 * HOUR + 10 * MINUTE], days: [[day0, 12345, 12345, 400]] });
      }
      // The page matches the anonymous API answer.
      const api = await local.api('GET', `/api/v1/ah/${M}/2589`, { headers: { 'x-forwarded-for': '192.0.2.251' } });
      const shown = ahfItem(await (await fetch(`${local.base}/item/2589`)).text());
      expect([shown.row, shown.days]).toEqual([api.body.row, api.body.days]);
      const md = await (await fetch(`${local.base}/item/2589.md`)).text();
      expect(md).toContain('1g 23s 45c');
      const other = await page('/item/2589?m=forever.pvp.horde.us');
      expect(ahfItem(other.text)).toMatchObject({ row: null, days: [] });
    });
  });

  describe('discovery', () => {
    it('serves the OpenAPI 3.1 description of the integration subset', async () => {
      const res = await page('/openapi.json');
      expect(res.status).toBe(200);
      const doc = JSON.parse(res.text);
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.servers[0].url).toBe(local.base);
      expect(Object.keys(doc.paths)).toContain('/api/v1/ah/books');
    });

    it('serves the endpoint directory in HTML and Markdown', async () => {
      const html = await page('/docs/api/reference');
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html.headers.get('vary')).toBe('Accept');
      expect(html.text).toContain('/api/v1/items/seen');
      const md = await page('/docs/api/reference', { accept: 'text/markdown' });
      expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect((await page('/docs/api/reference.md')).text).toBe(md.text);
      expect(md.text).toContain('| POST | `/api/v1/ah/books` |');
    });

    it('serves the API catalog as an RFC 9727 linkset', async () => {
      const res = await page('/.well-known/api-catalog');
      expect(res.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
      expect(JSON.parse(res.text).linkset[0]['service-desc'][0].href).toBe(`${local.base}/openapi.json`);
      const home = await page('/');
      expect(home.headers.get('link')).toBe(`<${local.base}/.well-known/api-catalog>; rel="api-catalog"`);
    });

    it('serves llms.txt, llms-full.txt and AGENTS.md', async () => {
      expect((await page('/llms.txt')).text).toMatch(/^# Market Data Service/);
      expect((await page('/llms-full.txt')).text).toContain('# API reference');
      const agents = await page('/AGENTS.md');
      expect(agents.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(agents.text).toMatch(/^# Agents/);
    });

    it('lists public pages in the sitemap, item pages included, and no private routes', async () => {
      const res = await page('/sitemap.xml');
      expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      expect(res.text).toContain(`<loc>${local.base}/item/2589</loc>`);
      expect(res.text).toContain(`<loc>${local.base}/docs/api/reference</loc>`);
      expect(res.text).not.toMatch(/\/api\/v1\/|\/market\/|#\//);
    });
  });

  describe('icons', () => {
    it('serve stored icons immutable by name and by file id, and 404 when missing', async () => {
      await put('icons/inv_fabric_linen_01.webp', WEBP, { ContentType: 'image/webp' });
      await put('icons/id/132889.webp', WEBP, { ContentType: 'image/webp' });
      for (const path of ['/icons/inv_fabric_linen_01.webp', '/icons/id/132889.webp']) {
        const res = await fetch(`${local.base}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/webp');
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(Buffer.from(await res.arrayBuffer())).toEqual(WEBP);
      }
      for (const path of ['/icons/missing.webp', '/icons/id/1.webp', '/icons/inv_fabric_linen_01.png', '/icons/id/abc.webp'])
        expect((await page(path)).status).toBe(404);
    });
  });
});
