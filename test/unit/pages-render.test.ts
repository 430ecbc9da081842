import { describe, expect, it } from 'vitest';
import { itemKey } from '../../shared/domain/item-key';
import { apiCatalog, llmsTxt, sitemapXml } from '../../shared/pages/discovery';
import {
  formatCopper,
  type ItemPageData,
  itemPageHtml,
  itemPageMarkdown,
  itemPageMeta,
  itemPageUrls,
  marketTitle,
  parseItemPath,
} from '../../shared/pages/item-page';
import { negotiatePage } from '../../shared/pages/negotiate';
import { openApiDocument } from '../../shared/pages/openapi';
import { directoryMarkdown, endpointDirectory } from '../../shared/pages/reference';
import { scriptJson } from '../../shared/pages/render';
import { HTTP_ROUTES } from '../../shared/topology';

const BASE = 'https://example.test/';
const M = 'forever.pvp.horde.us';
const NOW = Date.UTC(2026, 10, 2, 13, 25);

const page = (over: Partial<ItemPageData> = {}): ItemPageData => ({
  market: M,
  key: 2589,
  item: { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01' },
  row: [2589, 1234567, 340, Date.UTC(2026, 10, 2, 12, 50)],
  days: [[20758, 1200000, 1234567, 340]],
  now: NOW,
  ...over,
});

const ahfItem = (html: string): unknown => JSON.parse(/<script type="application\/json" id="ahf-item">(.*?)<\/script>/s.exec(html)![1]);

describe('Accept negotiation', () => {
  it('answers Markdown only for an explicit acceptable text/markdown that beats HTML', () => {
    expect(negotiatePage(undefined)).toBe('html');
    expect(negotiatePage('')).toBe('html');
    expect(negotiatePage('*/*')).toBe('html');
    expect(negotiatePage('text/*')).toBe('html');
    expect(negotiatePage('text/markdown')).toBe('markdown');
    expect(negotiatePage('text/markdown, */*;q=0.1')).toBe('markdown');
    expect(negotiatePage('text/html;q=0.5, text/markdown;q=0.9')).toBe('markdown');
    expect(negotiatePage('text/markdown;q=0')).toBe('html');
    expect(negotiatePage('application/json')).toBe('html');
  });

  it('lets HTML win a tie on quality values', () => {
    expect(negotiatePage('text/markdown, text/html')).toBe('html');
    expect(negotiatePage('text/markdown;q=0.8, text/html;q=0.8')).toBe('html');
    expect(negotiatePage('text/markdown;q=0.8, text/*;q=0.8')).toBe('html');
    expect(negotiatePage('text/markdown, */*')).toBe('html');
  });
});

describe('item paths', () => {
  it('reads <key>, <key>.md (no slug) and refuses malformed keys', () => {
    expect(parseItemPath('2589', false)).toEqual({ key: 2589, markdown: false });
    expect(parseItemPath('2589', true)).toEqual({ key: 2589, markdown: false });
    expect(parseItemPath('2589.md', false)).toEqual({ key: 2589, markdown: true });
    expect(parseItemPath('2589.md', true)).toBeNull();
    expect(parseItemPath('0', false)).toBeNull();
    expect(parseItemPath('abc', false)).toBeNull();
    expect(parseItemPath('12345678901234567', false)).toBeNull();
    expect(parseItemPath(String(2147483648 * 65536 + 1), false)).toBeNull();
    expect(parseItemPath(String(itemKey(2589, 7)), false)).toEqual({ key: itemKey(2589, 7), markdown: false });
  });
});

describe('item page', () => {
  const urls = itemPageUrls(BASE, M, 2589);

  it('carries name and price in title, description and og: meta, a heading, a summary and the ahf-item JSON', () => {
    const html = itemPageHtml(page(), urls);
    expect(formatCopper(1234567)).toBe('123g 45s 67c');
    expect(html).toContain('<title>Linen Cloth: 123g 45s 67c on PvP Horde (US)</title>');
    expect(html).toMatch(/<meta name="description" content="Linen Cloth sells for 123g 45s 67c/);
    expect(html).toMatch(/<meta property="og:title" content="Linen Cloth: 123g 45s 67c/);
    expect(html).toMatch(/<meta property="og:description" content="[^"]*123g 45s 67c/);
    expect(html).toContain('<h1>');
    expect(html).toContain('Lowest buyout 123g 45s 67c per unit with 340 listed on PvP Horde (US), observed 2026-11-02 12:50 UTC.');
    expect(ahfItem(html)).toEqual(page());
    expect(urls.page).toBe(`${BASE}item/2589?m=${M}`);
  });

  it('says that no observed price is available for a key never observed, and for one gone at the last scan', () => {
    const none = itemPageHtml(page({ row: null, days: [] }), urls);
    expect(none).toContain('No observed price is available for Linen Cloth on PvP Horde (US).');
    expect(itemPageMeta(page({ row: null })).title).toBe('Linen Cloth on PvP Horde (US)');
    const gone = itemPageMarkdown(page({ row: [2589, null, 0, NOW - 1000] }), urls);
    expect(gone).toContain('No observed price is available');
  });

  it('escapes names in HTML and keeps the script element closed', () => {
    const evil = page({ item: { n: '</script><img src=x onerror=alert(1)>', q: 1 } });
    const html = itemPageHtml(evil, urls);
    expect(html).not.toContain('<img src=x');
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(ahfItem(html)).toEqual(evil);
    expect(scriptJson('<!--\u2028')).toBe('"\\u003c!--\\u2028"');
  });

  it('names a variant by its own name and an unknown key by its item id', () => {
    const key = itemKey(2589, 7);
    expect(itemPageMarkdown(page({ key, variant: { n: 'Linen of the Owl', q: 2 } }), urls)).toMatch(/^# Linen of the Owl/);
    expect(itemPageMarkdown(page({ key, item: null }), urls)).toMatch(/^# Item 2589/);
  });

  it('puts the same facts in Markdown', () => {
    const md = itemPageMarkdown(page(), urls);
    expect(md).toMatch(/^# Linen Cloth\n/);
    expect(md).toContain('123g 45s 67c');
    expect(md).toContain('| 2026-11-01 |');
    expect(md).toContain(`${BASE}docs/api/reference.md`);
  });

  it('titles markets for people', () => {
    expect(marketTitle('forever.normal.alliance.us')).toBe('Normal Alliance (US)');
    expect(marketTitle('forever.rp.horde.us')).toBe('RP Horde (US)');
  });
});

describe('discovery documents', () => {
  it('describes every route of the manifest in the endpoint directory', () => {
    const dir = endpointDirectory();
    const listed = new Set(dir.flatMap((e) => e.methods.map((m) => `${m} ${e.path}`)));
    for (const r of HTTP_ROUTES) expect(listed.has(`${r.method} ${r.path}`)).toBe(true);
    expect(directoryMarkdown(BASE)).toContain('`/api/v1/items/seen`');
  });

  it('describes the integration subset in OpenAPI 3.1', () => {
    const doc = openApiDocument(BASE) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v1/ah',
      '/api/v1/ah/books',
      '/api/v1/ah/{market}/{item}',
      '/api/v1/ah/{market}/{item}/candles',
      '/api/v1/items',
      '/api/v1/items/{key}',
    ]);
    expect(Object.keys(doc.paths['/api/v1/ah/books'])).toEqual(['post']);
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/(\w+)/g) ?? [];
    const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    for (const r of refs) expect(schemas[r.split('/').pop()!]).toBeDefined();
  });

  it('links the API to its description and docs in the catalog', () => {
    const cat = apiCatalog(BASE) as { linkset: Array<Record<string, Array<{ href: string }>> & { anchor: string }> };
    expect(cat.linkset[0].anchor).toBe(`${BASE}api/v1/`);
    expect(cat.linkset[0]['service-desc'][0].href).toBe(`${BASE}openapi.json`);
    expect(cat.linkset[0]['service-doc'][0].href).toBe(`${BASE}docs/api/reference`);
  });

  it('lists only public pages in the sitemap', () => {
    const xml = sitemapXml(BASE, [2589, 2592]);
    expect(xml).toContain(`<loc>${BASE}item/2589</loc>`);
    expect(xml).toContain(`<loc>${BASE}docs/api/reference</loc>`);
    expect(xml).not.toMatch(/api\/v1|market\/|#\//);
  });

  it('starts llms.txt with a title and a summary quote', () => {
    expect(llmsTxt(BASE)).toMatch(/^# Market Data Service\n\n> /);
  });
});
