import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemKey, petKey } from '../../shared/domain/item-key';
import type { Row } from '../../shared/domain/merge';
import { observeKeys } from '../support/books';
import { type Local, startLocal } from '../support/local';

/** Integration: item data, the catalogue upload and its rebuild rule, updates and downloads, over real HTTP. */

const VARIANT = itemKey(2589, 5);
const PET = petKey(8485, 40);

const generatedFile = (build: string, items: Record<string, unknown>) => ({
  v: 1,
  build,
  source: 'integration test',
  suffixes: { '5': 'of the Bear' },
  statNames: { '7': 'Stamina' },
  bonusLists: { '100': [5, [[7, 3]]] },
  bonusTrees: { '1': [100] },
  items,
});

const FILE = generatedFile('1.15.7', {
  '2589': { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01', sell: 13, st: 20 },
  '2592': { n: 'Wool Cloth', q: 1, il: 15, c: 7, sc: 5, ic: 'inv_fabric_wool_01', st: 20 },
  '3000': { q: 2, il: 20, c: 15, sc: 0 },
  '8485': { n: 'Cat Carrier (Bombay)', q: 1, c: 15, sc: 2, ic: 'inv_box_petcarrier_01' },
});

describe('item data', () => {
  let local: Local;
  let ipSeq = 0;
  /** A fresh viewer address per request keeps the anonymous rate limit out of these tests. */
  const anon = () => ({ 'x-forwarded-for': `203.0.113.${++ipSeq % 250}` });
  const get = (path: string, headers: Record<string, string> = {}) => local.api('GET', path, { headers: { ...anon(), ...headers } });
  const publish = async (file: unknown) => {
    const res = await fetch(`${local.base}/_local/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(file) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const pointer = async () => (await (await fetch(`${local.base}/cdn/items/v1/current.json`)).json()) as Record<string, unknown>;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    local = await startLocal();
    const [a, b] = await Promise.all([local.user(), local.user()]);
    [keyA, keyB] = await Promise.all([local.apiKey(a.id), local.apiKey(b.id)]);
  });
  afterAll(() => local.close());

  it('answers 404 before any item data is published', async () => {
    for (const path of ['/api/v1/items', '/api/v1/items/search-index', '/api/v1/items/2589']) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found' });
    }
  });

  it('refuses an invalid generated file at /_local/items', async () => {
    expect((await publish({ ...FILE, v: 2 })).status).toBe(400);
    expect((await publish({ ...FILE, items: { '0': {} } })).status).toBe(400);
  });

  it('publishes a generated file as its build, with files, headers and the pointer of the spec', async () => {
    expect(await publish(FILE)).toEqual({ status: 200, body: { build: '1.15.7' } });
    const p = await pointer();
    expect(p).toMatchObject({ v: 1, build: '1.15.7', at: await local.now() });
    expect(p.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(p.items).toBe(`items/v1/1.15.7-${p.hash}/items.json.gz`);
    expect(p.search).toBe(`items/v1/1.15.7-${p.hash}/search.json.gz`);
    const files = (await (await fetch(`${local.base}/_local/files?prefix=items/v1/`)).json()) as { keys: Array<Record<string, string>> };
    const byKey = new Map(files.keys.map((k) => [k.key, k]));
    expect(byKey.get('items/v1/current.json')).toMatchObject({ contentType: 'application/json', cacheControl: 'public, max-age=300' });
    expect(byKey.get(p.items as string)).toMatchObject({ contentEncoding: 'gzip', cacheControl: 'public, max-age=31536000, immutable' });
    expect(byKey.get(p.search as string)).toMatchObject({ contentEncoding: 'gzip', cacheControl: 'public, max-age=31536000, immutable' });
    expect(byKey.get('items/v1/1.15.7/items.json.gz')).toMatchObject({ contentEncoding: 'gzip' });
    expect(byKey.get('items/v1/1.15.7/search.json.gz')).toMatchObject({ contentEncoding: 'gzip' });
  });

  it('serves merged item data with X-Service-Build and a 10-minute public cache', async () => {
    const res = await get('/api/v1/items');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-build')).toBe('1.15.7');
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    expect(res.body).toMatchObject({ v: 1, build: '1.15.7', variants: {}, catalogue: { changed: null, named: 0 } });
    expect(res.body.items['2589']).toEqual(FILE.items['2589']);
    const hash = (await pointer()).hash as string;
    const file = await (await fetch(`${local.base}/cdn/items/v1/1.15.7-${hash}/items.json.gz`)).text();
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(file).digest('hex').slice(0, 16)).toBe(hash);
  });

  it('passes gzip through when the caller accepts it', async () => {
    const res = await fetch(`${local.base}/api/v1/items`, { headers: { ...anon(), 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(((await res.json()) as { build: string }).build).toBe('1.15.7');
  });

  it('selects a build by name and refuses an unknown one with bad_build', async () => {
    expect((await get('/api/v1/items?build=1.15.7')).status).toBe(200);
    expect((await get('/api/v1/items?build=0.0.1')).body).toMatchObject({ error: 'bad_build' });
    expect((await get('/api/v1/items?build=0.0.1')).status).toBe(400);
    expect((await get('/api/v1/items/search-index?build=..%2Fx')).status).toBe(400);
  });

  it('serves the search index sorted by name', async () => {
    const res = await get('/api/v1/items/search-index');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-build')).toBe('1.15.7');
    expect(res.body.items.map((e: unknown[]) => e[1])).toEqual(['Cat Carrier (Bombay)', 'Linen Cloth', 'Wool Cloth']);
    expect(res.body.items[1]).toEqual([2589, 'Linen Cloth', 1, 'inv_fabric_linen_01', 7, 5]);
  });

  it("tags one key's answer without its now, so a revalidation earns a 304 until the record changes (issue 24.10)", async () => {
    const first = await get('/api/v1/items/2589');
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^W\/"/);
    await local.advance(1000);
    const second = await get('/api/v1/items/2589');
    // The body changed (`now`), the record did not: the same tag, and a 304 for it.
    expect(second.body.now).toBe(first.body.now + 1000);
    expect(second.headers.get('etag')).toBe(tag);
    const revalidated = await get('/api/v1/items/2589', { 'if-none-match': tag as string });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBeUndefined();
    expect(revalidated.headers.get('etag')).toBe(tag);
    // Another key is another record: its tag differs, and the first key's tag earns it no 304.
    const other = await get('/api/v1/items/424242', { 'if-none-match': tag as string });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(tag);
  });

  it('answers one key with its item record, and 400 bad_item for an invalid key', async () => {
    const res = await get('/api/v1/items/2589');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    expect(res.body).toEqual({ build: '1.15.7', key: 2589, item: FILE.items['2589'], now: await local.now() });
    expect((await get('/api/v1/items/424242')).body).toMatchObject({ key: 424242, item: null });
    for (const bad of ['abc', '0', String(2147483648 * 65536 + 5)]) expect((await get(`/api/v1/items/${bad}`)).body).toMatchObject({ error: 'bad_item' });
  });

  describe('catalogue upload', () => {
    const seen = (token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
      local.api('POST', '/api/v1/items/seen', { token, body, headers });

    // One account names these keys below: its name counts only for a key with a row in some market (issue 23).
    beforeAll(() => observeKeys(local, [99999, 3000, VARIANT, PET, 424242]));

    it('answers 401 to anonymous callers, 403 devices_only to sessions and 403 forbidden to keys without api.upload', async () => {
      const body = { items: [[2589, 'x', 1, 0, 0]] };
      expect((await seen(undefined, body, anon())).status).toBe(401);
      const u = await local.user();
      const session = await local.session(u.id);
      const res = await seen(session, body);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'devices_only' });
      const readOnly = await local.apiKey(u.id, ['api.read']);
      expect((await seen(readOnly, body)).body).toEqual(expect.objectContaining({ error: 'forbidden', feature: 'api.upload' }));
    });

    it('refuses bad bodies with 400 bad_request and bodies above 4 MiB with 413', async () => {
      expect((await seen(keyA, 'not json')).body).toMatchObject({ error: 'bad_request' });
      expect((await seen(keyA, { items: [[2589, '', 1, 0, 0]] })).body).toMatchObject({ error: 'bad_request' });
      expect((await seen(keyA, { items: Array.from({ length: 5001 }, (_, i) => [i + 1, 'x', 0, 0, 0]) })).body).toMatchObject({ error: 'bad_request' });
      const big = await seen(keyA, JSON.stringify({ items: [], pad: 'x'.repeat(4 * 1024 * 1024) }));
      expect(big.status).toBe(413);
    });

    it('counts keys new to the catalogue as added and the rest as known, a repeated key once', async () => {
      const items = [
        [99999, 'Mystery Box', 2, 123, 1],
        [2589, 'Linnen', 1, 0, 0],
        [3000, 'Unnamed Ring', 3, 0, 2],
        [VARIANT, 'Linen of the Bear', 2, 77, 0],
        [VARIANT, 'Linen Cloth of the Bear', 2, 77, 0],
      ];
      expect((await seen(keyA, { build: '1.15.7', items })).body).toEqual({ added: 4, known: 0 });
      expect((await seen(keyA, { items: items.slice(0, 2) })).body).toEqual({ added: 0, known: 2 });
    });

    it('takes a gzip body', async () => {
      const res = await fetch(`${local.base}/api/v1/items/seen`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keyB}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ items: [[PET, 'Bombay Cat', 1, 0, 4]] })),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ added: 1, known: 0 });
    });

    it('keeps merged files until 10 minutes after the last build, then rebuilds them on request', async () => {
      const before = (await pointer()).hash;
      expect((await get('/api/v1/items')).body.items['99999']).toBeUndefined();
      await local.advance(10 * 60_000);
      const res = await get('/api/v1/items');
      expect(res.body.items['99999']).toEqual({ n: 'Mystery Box', q: 2, fi: 123, fl: 1 });
      // One account names a key the generated data leaves unnamed; a generated name wins over one account.
      expect(res.body.items['3000']).toEqual({ q: 2, il: 20, c: 15, sc: 0, n: 'Unnamed Ring', fl: 2 });
      expect(res.body.items['2589']).toEqual(FILE.items['2589']);
      expect(res.body.variants).toEqual({ [VARIANT]: { n: 'Linen Cloth of the Bear', q: 2, fi: 77 }, [PET]: { n: 'Bombay Cat', q: 1 } });
      expect(res.body.catalogue).toEqual({ changed: expect.any(Number), named: 4 });
      expect((await pointer()).hash).not.toBe(before);
      expect((await get(`/api/v1/items/${VARIANT}`)).body).toMatchObject({
        item: { n: 'Linen Cloth' },
        variant: { n: 'Linen Cloth of the Bear', q: 2, fi: 77 },
      });
      const index = (await get('/api/v1/items/search-index')).body.items as unknown[][];
      expect(index.find((e) => e[0] === 99999)).toEqual([99999, 'Mystery Box', 2, 123, null, null]);
    });

    it('rebuilds on the items schedule when a name changed and the last build is 10 minutes old', async () => {
      // A second account agrees on a name: it is now accepted over... nothing (generated wins), but the name changed.
      expect((await seen(keyB, { items: [[2592, 'Wool', 1, 0, 0]] })).body).toEqual({ added: 1, known: 0 });
      expect(
        (
          await seen(keyA, {
            items: [
              [2592, 'Wool', 1, 0, 0],
              [424242, 'Late Item', 1, 0, 0],
            ],
          })
        ).body,
      ).toEqual({ added: 1, known: 1 });
      const before = await pointer();
      await local.advance(9 * 60_000);
      await local.tick();
      expect((await pointer()).hash).toBe(before.hash);
      await local.advance(60_000);
      expect(await local.tick()).toContain('items');
      const after = await pointer();
      expect(after.hash).not.toBe(before.hash);
      const data = (await (await fetch(`${local.base}/cdn/${after.items}`)).json()) as { items: Record<string, { n: string }> };
      expect(data.items['424242'].n).toBe('Late Item');
      expect(data.items['2592'].n).toBe('Wool Cloth');
    });

    it('publishing a new build makes it current at once, merged with the catalogue', async () => {
      await publish(generatedFile('1.15.8', { '2589': FILE.items['2589'] }));
      const res = await get('/api/v1/items');
      expect(res.headers.get('x-service-build')).toBe('1.15.8');
      expect(res.body.items['99999']).toMatchObject({ n: 'Mystery Box' });
      expect((await get('/api/v1/items?build=1.15.7')).headers.get('x-service-build')).toBe('1.15.7');
    });
  });

  describe('unknown keys', () => {
    it('lists keys with a row in any market and no name, ascending', async () => {
      const store = local.runtime.operator.market.latest;
      const now = await local.now();
      const row = (price: number | null): Row => ({ price, quantity: price === null ? 0 : 5, at: now, reader: 'r', changedAt: now });
      const rows = (keys: number[]) => new Map(keys.map((k) => [k, row(k === 555 ? null : 100)]));
      // Named: 2589 (generated), VARIANT (catalogue); unnamed: 555 (gone row), 777, a suffix key of a named item.
      await store.writeRows('forever.normal.alliance.us', rows([2589, 777, 555]), [2589, 777, 555]);
      await store.writeRows('forever.rp.horde.us', rows([VARIANT, itemKey(2589, 9), 777]), [VARIANT, itemKey(2589, 9), 777]);
      const res = await get('/api/v1/items/unknown');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=600');
      expect(res.body).toEqual({ items: [555, 777, itemKey(2589, 9)], now });
    });
  });

  describe('updates and downloads', () => {
    it('serves the updater manifest never cached, with URLs on the file host', async () => {
      const res = await get('/api/v1/update/latest.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toMatchObject({ version: expect.any(String), notes: expect.any(String), pub_date: expect.any(String) });
      for (const p of Object.values(res.body.platforms) as Array<{ signature: string; url: string }>)
        expect(p.url.startsWith(`${local.base}/cdn/releases/`)).toBe(true);
    });

    it('redirects the desktop download to the installer on the file host, and keeps the old paths 404', async () => {
      const res = await fetch(`${local.base}/api/v1/downloads/desktop/latest`, { redirect: 'manual', headers: anon() });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(new RegExp(`^${local.base}/cdn/releases/downloads/[^/]+$`));
      expect((await get('/update/latest.json')).status).toBe(404);
      expect((await get('/downloads/desktop/latest')).status).toBe(404);
    });
  });
});
