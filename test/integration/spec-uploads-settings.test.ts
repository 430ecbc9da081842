import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookEntry } from '../../shared/domain/book';
import { makeBook, uploadBook, withEntries } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';
import { bookOf } from '../support/market-books';

/**
 * Integration, black box: the spec's words on book uploads and credit, catalogue uploads, item data, settings
 * (watchlist, alerts, boards), alert transitions over real merges, Web Push routes and item pages.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const KEY_BASE = 2147483648;

describe('spec: uploads, item data, settings, push and item pages', () => {
  let local: Local;
  let ip = 0;
  const anonHeaders = () => ({ 'x-forwarded-for': `192.0.2.${(++ip % 250) + 1}` });
  const freshKey = async (input: Record<string, unknown> = {}) => {
    const user = await local.user(input);
    return { user, key: await local.apiKey(user.id) };
  };
  const signIn = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { id: u.id, token: await local.session(u.id, { expiresIn: 30 * 86_400 }) };
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  describe('POST /api/v1/ah/books: body rules at their bounds', () => {
    const market = 'forever.rp.horde.us';
    let n = 0;

    it('accepts every field at its inclusive bounds', async () => {
      const now = await local.now();
      const maxPetKey = 2 ** 53 - 1; // item 2^31-1, v 4194303
      const entries: BookEntry[] = [
        [1, 0, 1, 0, 1],
        [1, 2 ** 53 - 1, 2 ** 31 - 1, 4, 1],
        [65535 * KEY_BASE + 5, 7, 1, 1, 2 ** 31 - 1 - 2],
        [maxPetKey, 9, 1, 2, 1],
      ];
      const { key } = await freshKey();
      const res = await uploadBook(local, key, withEntries(makeBook(now - MINUTE - ++n, { market }), entries));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });

    it('answers 400 bad_book just past every bound and for every missing or mistyped field', async () => {
      const now = await local.now();
      const { key } = await freshKey();
      const good = makeBook(now - MINUTE - ++n, { market, keys: 2 });
      const cases: Array<[string, unknown]> = [
        ['price 2^53', withEntries(good, [[1000, 2 ** 53, 1, 1, 1]])],
        ['price fractional', withEntries(good, [[1000, 1.5, 1, 1, 1]])],
        ['price string', withEntries(good, [[1000, '5', 1, 1, 1]] as never)],
        ['stack 2^31', withEntries(good, [[1000, 5, 2 ** 31, 1, 1]])],
        ['band -1', withEntries(good, [[1000, 5, 1, -1, 1]])],
        ['n 2^31', withEntries(good, [[1000, 5, 1, 1, 2 ** 31]])],
        ['key v 65536', withEntries(good, [[65536 * KEY_BASE + 5, 5, 1, 1, 1]])],
        ['key 2^53', withEntries(good, [[2 ** 53, 5, 1, 1, 1]])],
        ['key string', withEntries(good, [['1000', 5, 1, 1, 1]] as never)],
        ['key 0', withEntries(good, [[0, 5, 1, 1, 1]])],
        ['entry of 6', withEntries(good, [[1000, 5, 1, 1, 1, 1]] as never)],
        ['same key/price/stack/band twice', withEntries(good, [[1000, 5, 1, 1, 1], [1000, 5, 1, 1, 2]])],
        ['descending band', withEntries(good, [[1000, 5, 1, 2, 1], [1000, 5, 1, 1, 1]])],
        ['descending stack', withEntries(good, [[1000, 5, 2, 1, 1], [1000, 5, 1, 1, 1]])],
        ['descending price', withEntries(good, [[1000, 6, 1, 1, 1], [1000, 5, 1, 1, 1]])],
        ['complete missing', { ...good, complete: undefined }],
        ['complete null', { ...good, complete: null }],
        ['auctions missing', { ...good, auctions: undefined }],
        ['auctions fractional', { ...good, auctions: 2.5 }],
        ['entries missing', { ...good, entries: undefined }],
        ['at a string', { ...good, at: String(good.at) }],
      ];
      for (const [name, body] of cases) {
        const res = await uploadBook(local, key, body);
        expect({ name, status: res.status, error: res.body?.error }).toEqual({ name, status: 400, error: 'bad_book' });
      }
    });

    it('accepts exactly 200000 entries (gzip), an empty book, and answers {at, credited, reason} only', async () => {
      const now = await local.now();
      const entries: BookEntry[] = Array.from({ length: 200_000 }, (_, i) => [4242, i + 1, 1, 1, 1]);
      const { key } = await freshKey();
      const book = withEntries(makeBook(now - 2 * MINUTE - ++n, { market: 'forever.normal.horde.us' }), entries);
      const big = await uploadBook(local, key, book, { gzip: true });
      expect(big.status, JSON.stringify(big.body)).toBe(200);
      expect(Object.keys(big.body).sort()).toEqual(['at', 'credited', 'reason']);
      expect(big.body).toEqual({ at: book.at, credited: false, reason: 'too_small' });
      const other = await freshKey();
      const empty = { market: 'forever.pvp.horde.us', at: now - MINUTE, complete: true, auctions: 0, entries: [] };
      expect(await uploadBook(local, other.key, empty)).toEqual({ status: 200, body: { at: empty.at, credited: false, reason: 'too_small' } });
      await local.settle();
    });

    it('accepts a body of exactly 32 MiB, plain and decompressed from gzip', async () => {
      const now = await local.now();
      const MiB = 1024 * 1024;
      for (const [i, gzip] of [[1, false], [2, true]] as const) {
        const { key } = await freshKey();
        const text = JSON.stringify(makeBook(now - 3 * MINUTE - i, { market: 'forever.normal.horde.us', first: 123_000 }));
        const exact = text + ' '.repeat(32 * MiB - Buffer.byteLength(text));
        expect(Buffer.byteLength(exact)).toBe(32 * MiB);
        const res = await uploadBook(local, key, exact, { gzip });
        expect({ gzip, status: res.status, body: res.body }).toMatchObject({ gzip, status: 200, body: { credited: expect.any(Boolean) } });
      }
      await local.settle();
    });

    it('answers 404 to the retired POST /api/v1/ah/scans, even for an uploader', async () => {
      const { key } = await freshKey();
      const res = await local.api('POST', '/api/v1/ah/scans', { token: key, body: makeBook((await local.now()) - MINUTE) });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found' });
    });
  });

  describe('POST /api/v1/ah/books: answers and credit rules', () => {
    it('answers `at` as the market\'s newest merged observation, not the late book\'s own', async () => {
      const market = 'forever.pvp.alliance.us';
      const now = await local.now();
      const a = await freshKey();
      const b = await freshKey();
      const newer = makeBook(now - 5 * MINUTE, { market, first: 70_000 });
      expect((await uploadBook(local, a.key, newer)).body).toEqual({ at: newer.at, credited: true });
      await local.settle();
      const late = makeBook(now - 3 * HOUR, { market, first: 70_000 });
      expect((await uploadBook(local, b.key, late)).body).toEqual({ at: newer.at, credited: true });
    });

    it('checks the rules in order: incomplete before too_small, too_small before too_soon_credit', async () => {
      const market = 'forever.normal.alliance.us';
      const now = await local.now();
      const user = await local.user();
      // Three API keys of one account: three callers (no 409 between them), one account for credit.
      const [k1, k2, k3] = [await local.apiKey(user.id), await local.apiKey(user.id), await local.apiKey(user.id)];
      // Incomplete and small: incomplete wins.
      expect((await uploadBook(local, k1, makeBook(now - 20 * MINUTE, { market, keys: 3, complete: false, first: 50 }))).body).toEqual({
        at: now - 20 * MINUTE,
        credited: false,
        reason: 'incomplete',
      });
      await local.advance(5 * MINUTE);
      expect((await uploadBook(local, k1, makeBook(now - 19 * MINUTE, { market, keys: 100, first: 50 }))).body).toMatchObject({ credited: true });
      await local.settle();
      // Small (5 keys < 100 and < a quarter of 100 listed) and within the credit interval: too_small wins.
      expect((await uploadBook(local, k2, makeBook(now - 18 * MINUTE, { market, keys: 5, first: 50, complete: false }))).body).toMatchObject({
        credited: false,
        reason: 'incomplete',
      });
      expect((await uploadBook(local, k3, makeBook(now - 17 * MINUTE, { market, keys: 5, first: 50 }))).body).toMatchObject({ credited: false, reason: 'too_small' });
      await local.advance(5 * MINUTE - 1);
      const k4 = await local.apiKey(user.id);
      expect((await uploadBook(local, k4, makeBook(now - 16 * MINUTE, { market, keys: 100, first: 50 }))).body).toMatchObject({
        credited: false,
        reason: 'too_soon_credit',
      });
      // 300000 ms after the credited upload it counts again.
      await local.advance(1);
      const ok = await uploadBook(local, k1, makeBook(now - 15 * MINUTE, { market, keys: 100, first: 50 }));
      expect(ok.body).toEqual({ at: now - 15 * MINUTE, credited: true });
      await local.settle();
    });

    it('too_small: 99 keys with no items listed in the last day; 100 keys always count', async () => {
      const market = 'forever.rp.alliance.us';
      const now = await local.now();
      const a = await freshKey();
      const b = await freshKey();
      expect((await uploadBook(local, a.key, makeBook(now - MINUTE, { market, keys: 99, first: 10 }))).body).toEqual({ at: now - MINUTE, credited: false, reason: 'too_small' });
      await local.settle();
      // 99 rows are now listed: 99 keys are not fewer than a quarter of them.
      expect((await uploadBook(local, b.key, makeBook(now - MINUTE + 1, { market, keys: 30, first: 10 }))).body).toEqual({ at: now - MINUTE + 1, credited: true });
      await local.settle();
      // A day later those readings no longer count: only the 100 keys do.
      await local.advance(DAY + 2 * MINUTE);
      const later = await local.now();
      const c = await freshKey();
      expect((await uploadBook(local, c.key, makeBook(later - MINUTE, { market, keys: 30, first: 10 }))).body).toMatchObject({ credited: false, reason: 'too_small' });
      const d = await freshKey();
      expect((await uploadBook(local, d.key, makeBook(later - MINUTE + 1, { market, keys: 100, first: 5000 }))).body).toMatchObject({ credited: true });
      await local.settle();
    });

    it('disagrees only when the lower median of |ln(price/reading)| over 20+ other accounts\' fresh readings exceeds ln 2', async () => {
      const market = 'forever.normal.horde.us';
      const now = await local.now();
      const base = await freshKey();
      // 20 items read by another account at 10000 each.
      expect((await uploadBook(local, base.key, makeBook(now - 30 * MINUTE, { market, keys: 20, first: 900_000, price: () => 10_000, complete: false }))).status).toBe(200);
      await local.settle();
      // Exactly double: ln 2 does not exceed ln 2 → merged.
      const same = await freshKey();
      const x2 = await uploadBook(local, same.key, makeBook(now - 20 * MINUTE, { market, keys: 20, first: 900_000, price: () => 20_000, complete: false }));
      expect(x2.body).toEqual({ at: now - 20 * MINUTE, credited: false, reason: 'incomplete' });
      await local.settle();
      // Rows now read at 20000 by `same`: 19 readings of others are not enough.
      const few = await freshKey();
      const r19 = await uploadBook(local, few.key, makeBook(now - 15 * MINUTE, { market, keys: 19, first: 900_000, price: () => 60_000, complete: false }));
      expect(r19.body).toMatchObject({ reason: 'incomplete' });
      await local.settle();
      // 20 readings (19 at 60000, 1 at 20000) and a book at 200000: the median ratio is > 2 → disagrees, not merged.
      const far = await freshKey();
      const res = await uploadBook(local, far.key, makeBook(now - 10 * MINUTE, { market, keys: 20, first: 900_000, price: () => 200_000, complete: false }));
      // DESIGN: the answer's `at` is max(market's newest merged observation, the book's `at`).
      expect(res.body).toEqual({ at: now - 10 * MINUTE, credited: false, reason: 'disagrees' });
      await local.settle();
      const anonRow = await local.api('GET', `/api/v1/ah/${market}/900000`, { token: await local.session((await local.user({ plan: 'premium' })).id) });
      expect(anonRow.body.row).toEqual([900_000, 60_000, 1, now - 15 * MINUTE]);
      // Readings older than 2 hours do not count.
      await local.advance(2 * HOUR + MINUTE);
      const stale = await freshKey();
      const ok = await uploadBook(local, stale.key, makeBook((await local.now()) - MINUTE, { market, keys: 20, first: 900_000, price: () => 200_000, complete: false }));
      expect(ok.body).toMatchObject({ reason: 'incomplete' });
      await local.settle();
    });

    // The current end may be known only from the identity provider's claim (e.g. set by an admin).
    it('extends the contributor window to max(current end, now + 14 days)', async () => {
      const now = await local.now();
      const far = now + 20 * DAY;
      const u = await local.user({ contributorUntil: far });
      const key = await local.apiKey(u.id);
      const session = await local.session(u.id);
      const book = makeBook(now - MINUTE, { market: 'forever.rp.alliance.us', first: 300_000 });
      expect((await uploadBook(local, key, book)).body).toMatchObject({ credited: true });
      const me = (await local.api('GET', '/api/v1/me', { token: session })).body;
      expect(me.contributor.until).toBe(far);
      await local.settle();
    });
  });

  describe('catalogue upload: POST /api/v1/items/seen', () => {
    const seen = (token: string, body: unknown, headers: Record<string, string> = {}) => local.api('POST', '/api/v1/items/seen', { token, body, headers });

    it('accepts exactly 5000 entries and every field at its bounds, from a device too', async () => {
      const u = await local.user();
      const device = await pairDevice(local, u.id);
      // 5000 entries over 50 keys: the limit counts entries, and a key given again counts once (the last). Fewer
      // distinct keys keep the test light: the local DynamoDB writes about 1500 items a second.
      const items = Array.from({ length: 5000 }, (_, i) => [600_000 + (i % 50), `n${i}`, 0, 0, 0]);
      items[4999] = [600_049, `  ${'x'.repeat(200)}  `, 10, 2 ** 40, 7];
      const res = await seen(device.token, { build: 'anything', items });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ added: 50, known: 0 });
    });

    it('answers 400 bad_request just past every bound', async () => {
      const { key } = await freshKey();
      const cases: unknown[] = [
        { items: [[1, 'x'.repeat(201), 0, 0, 0]] },
        { items: [[1, '   ', 0, 0, 0]] },
        { items: [[1, 5, 0, 0, 0]] },
        { items: [[1, 'x', 11, 0, 0]] },
        { items: [[1, 'x', -1, 0, 0]] },
        { items: [[1, 'x', 0, -1, 0]] },
        { items: [[1, 'x', 0, 1.5, 0]] },
        { items: [[1, 'x', 0, 0, 8]] },
        { items: [[0, 'x', 0, 0, 0]] },
        { items: [[1, 'x', 0, 0]] },
        { items: 'no' },
        {},
        [],
      ];
      for (const body of cases) {
        const res = await seen(key, body);
        expect({ body, status: res.status, error: res.body?.error }).toEqual({ body, status: 400, error: 'bad_request' });
      }
    });

    it('accepts a body of exactly 4 MiB', async () => {
      const { key } = await freshKey();
      const text = JSON.stringify({ items: [[610_000, 'Exact', 1, 0, 0]] });
      const exact = text + ' '.repeat(4 * 1024 * 1024 - text.length);
      expect((await seen(key, exact)).body).toEqual({ added: 1, known: 0 });
    });

    it('answers 413 to a gzip body that inflates beyond 4 MiB', async () => {
      const { key } = await freshKey();
      const res = await fetch(`${local.base}/api/v1/items/seen`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ items: [], pad: ' '.repeat(4 * 1024 * 1024) })),
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: 'too_large' });
    });
  });

  describe('item data reads', () => {
    beforeAll(async () => {
      const file = {
        v: 1,
        build: 'spec-1',
        source: 'spec test',
        suffixes: {},
        statNames: {},
        bonusLists: {},
        bonusTrees: {},
        items: { '2589': { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01', st: 20 } },
      };
      const res = await fetch(`${local.base}/_local/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(file) });
      expect(res.status).toBe(200);
    });

    it('answers item data to API keys without api.read (item data is exempt)', async () => {
      const u = await local.user();
      const readless = await local.apiKey(u.id, ['api.upload']);
      for (const path of ['/api/v1/items', '/api/v1/items/search-index', '/api/v1/items/2589', '/api/v1/items/unknown']) {
        const res = await local.api('GET', path, { token: readless });
        expect(res.status, path).toBe(200);
      }
    });

    it('answers a single key with exactly {build, key, item, now}, and 400 bad_item for keys past the rules', async () => {
      const res = await local.api('GET', '/api/v1/items/2589', { headers: anonHeaders() });
      expect(res.headers.get('cache-control')).toBe('public, max-age=600');
      expect(Object.keys(res.body).sort()).toEqual(['build', 'item', 'key', 'now']);
      const pet = 2589 + KEY_BASE * 65537;
      expect((await local.api('GET', `/api/v1/items/${pet}`, { headers: anonHeaders() })).body).toMatchObject({ key: pet, item: { n: 'Linen Cloth' } });
      for (const bad of ['12345678901234567', String(65536 * KEY_BASE + 1), String(4194304 * KEY_BASE + 1), '-5', '1e3']) {
        const r = await local.api('GET', `/api/v1/items/${bad}`, { headers: anonHeaders() });
        expect({ bad, status: r.status, error: r.body?.error }).toEqual({ bad, status: 400, error: 'bad_item' });
      }
    });

    it('answers 400 bad_build for a build never published', async () => {
      const res = await local.api('GET', '/api/v1/items?build=nope-9', { headers: anonHeaders() });
      expect(res).toMatchObject({ status: 400, body: { error: 'bad_build' } });
      const idx = await local.api('GET', '/api/v1/items/search-index?build=nope-9', { headers: anonHeaders() });
      expect(idx).toMatchObject({ status: 400, body: { error: 'bad_build' } });
    });
  });

  describe('watchlist', () => {
    it('keeps keys in the given order at exactly the role limit, up to the 200 cap', async () => {
      const premium = await signIn({ plan: 'premium' });
      const items = Array.from({ length: 200 }, (_, i) => 5000 - i);
      expect((await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items } })).body).toEqual({ items });
      const over = await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items: [...items, 9999] } });
      expect(over).toMatchObject({ status: 409, body: { error: 'too_many', limit: 200 } });
      expect((await local.api('GET', '/api/v1/market/watch', { token: premium.token })).body).toEqual({ items });
      const empty = await local.api('PUT', '/api/v1/market/watch', { token: premium.token, body: { items: [] } });
      expect(empty.body).toEqual({ items: [] });
    });

    it('answers 405 method_not_allowed for methods the settings routes do not serve', async () => {
      const { token } = await signIn();
      for (const [method, path] of [
        ['POST', '/api/v1/market/watch'],
        ['DELETE', '/api/v1/market/boards'],
        ['PATCH', '/api/v1/market/alerts'],
        ['GET', '/api/v1/market/alerts/abc'],
      ]) {
        const res = await local.api(method, path, { token, body: method === 'GET' ? undefined : {} });
        expect({ method, path, status: res.status, error: res.body?.error }).toEqual({ method, path, status: 405, error: 'method_not_allowed' });
      }
    });
  });

  describe('alerts: MarketAlertInput rules', () => {
    const market = 'forever.normal.alliance.us';
    let token: string;
    const post = (body: unknown) => local.api('POST', '/api/v1/market/alerts', { token, body });
    beforeAll(async () => {
      token = (await signIn({ plan: 'premium' })).token;
    });

    it('answers the input plus {id, created, armed, last}, enabled by default, unknown fields dropped', async () => {
      const now = await local.now();
      const res = await post({ market, item: 2589, kind: 'below', value: 1, extra: 'x' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        alert: { market, item: 2589, kind: 'below', value: 1, enabled: true, id: expect.any(String), created: now, armed: true, last: null },
      });
      const named = await post({ market, item: 2589, kind: 'above', value: 5, name: 'n'.repeat(80), note: 'm'.repeat(200), enabled: false });
      expect(named.body.alert).toMatchObject({ name: 'n'.repeat(80), note: 'm'.repeat(200), enabled: false });
    });

    it('accepts every kind\'s value range at its bounds and refuses one past it with 400 bad_request', async () => {
      const bounds: Array<[string, number, number]> = [
        ['below', 1, 2 ** 53 - 1],
        ['above', 1, 2 ** 53 - 1],
        ['rise', 1, 1000],
        ['fall', 1, 99],
        ['supplyBelow', 0, 2 ** 31 - 1],
        ['supplyAbove', 1, 2 ** 31 - 1],
        ['deal', 1, 99],
      ];
      const ids: string[] = [];
      for (const [kind, lo, hi] of bounds) {
        for (const value of [lo, hi]) {
          const ok = await post({ market, item: 2589, kind, value });
          expect({ kind, value, status: ok.status }).toEqual({ kind, value, status: 200 });
          ids.push(ok.body.alert.id);
        }
        for (const value of [lo - 1, hi + 1, lo + 0.5]) {
          const res = await post({ market, item: 2589, kind, value });
          expect({ kind, value, status: res.status, error: res.body?.error }).toEqual({ kind, value, status: 400, error: 'bad_request' });
        }
      }
      for (const id of ids) await local.api('DELETE', `/api/v1/market/alerts/${id}`, { token });
    });

    it('refuses item 0 for every kind but deal, a bad market, name/note past their lengths and a non-boolean enabled', async () => {
      const deal = await post({ market, item: 0, kind: 'deal', value: 30 });
      expect(deal.status).toBe(200);
      await local.api('DELETE', `/api/v1/market/alerts/${deal.body.alert.id}`, { token });
      const cases: unknown[] = [
        { market, item: 0, kind: 'below', value: 5 },
        { market, item: 0, kind: 'supplyBelow', value: 5 },
        { market: 'forever.normal.alliance.eu', item: 2589, kind: 'below', value: 5 },
        { item: 2589, kind: 'below', value: 5 },
        { market, item: 2589, kind: 'under', value: 5 },
        { market, item: 65536 * KEY_BASE + 1, kind: 'below', value: 5 },
        { market, item: '2589', kind: 'below', value: 5 },
        { market, item: 2589, kind: 'below', value: '5' },
        { market, item: 2589, kind: 'below', value: 5, name: 'n'.repeat(81) },
        { market, item: 2589, kind: 'below', value: 5, note: 'm'.repeat(201) },
        { market, item: 2589, kind: 'below', value: 5, enabled: 'yes' },
        { market, item: 2589, kind: 'below', value: 5, name: 7 },
      ];
      for (const body of cases) {
        const res = await post(body);
        expect({ body, status: res.status, error: res.body?.error }).toEqual({ body, status: 400, error: 'bad_request' });
      }
    });

    it('answers {deleted: false} for an unknown id and 404 unknown_alert to a PUT of one', async () => {
      expect((await local.api('DELETE', '/api/v1/market/alerts/nope', { token })).body).toEqual({ deleted: false });
      const res = await local.api('PUT', '/api/v1/market/alerts/nope', { token, body: { market, item: 2589, kind: 'below', value: 5 } });
      expect(res).toMatchObject({ status: 404, body: { error: 'unknown_alert' } });
    });
  });

  describe('alerts: transitions over real merges', () => {
    const market = 'forever.pvp.horde.us';
    const K = 777_001;
    let owner: { id: string; token: string };
    const upload = async (listings: Array<[number, number, number]>, complete = false) => {
      const { key } = await freshKey();
      const at = (await local.now()) - 1000;
      const res = await local.api('POST', '/api/v1/ah/books', { token: key, body: bookOf(at, listings, complete, market) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await local.settle();
      return at;
    };
    const alertById = async (id: string): Promise<unknown> =>
      ((await local.api('GET', '/api/v1/market/alerts', { token: owner.token })).body.alerts as Array<{ id: string }>).find((a) => a.id === id);

    beforeAll(async () => {
      owner = await signIn({ plan: 'premium' });
    });

    it('fires an armed single-item alert, holds it once per hour, re-arms when the condition lapses, and PUT re-arms keeping last', async () => {
      const input = { market, item: K, kind: 'below', value: 100 };
      const created = await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: input });
      const id = created.body.alert.id as string;
      const t0 = await local.now();
      await upload([[K, 90, 5]]);
      const fired = await alertById(id);
      expect(fired).toMatchObject({ armed: false, last: { at: t0, hits: [[K, 90, 5]] } });
      // Still holding, not armed: unchanged.
      await local.advance(10 * MINUTE);
      await upload([[K, 95, 6]]);
      expect(await alertById(id)).toMatchObject({ armed: false, last: { at: t0, hits: [[K, 90, 5]] } });
      // Condition lapses: armed again, last kept.
      await local.advance(10 * MINUTE);
      await upload([[K, 150, 6]]);
      expect(await alertById(id)).toMatchObject({ armed: true, last: { at: t0, hits: [[K, 90, 5]] } });
      // Holds again within the hour of the last firing: not allowed, unchanged (still armed).
      await local.advance(10 * MINUTE);
      await upload([[K, 80, 7]]);
      expect(await alertById(id)).toMatchObject({ armed: true, last: { at: t0, hits: [[K, 90, 5]] } });
      // Exactly an hour after the last firing: fires.
      await local.setClock(t0 + HOUR);
      await upload([[K, 85, 8]]);
      expect(await alertById(id)).toMatchObject({ armed: false, last: { at: t0 + HOUR, hits: [[K, 85, 8]] } });
      // PUT: armed, last kept.
      const put = await local.api('PUT', `/api/v1/market/alerts/${id}`, { token: owner.token, body: { ...input, value: 50 } });
      expect(put.status).toBe(200);
      expect(put.body.alert).toMatchObject({ id, value: 50, armed: true, last: { at: t0 + HOUR, hits: [[K, 85, 8]] } });
    });

    it('supply alerts need a row: a gone row holds supplyBelow 0 with a null price; below never holds on it', async () => {
      const K2 = 777_100;
      const K3 = 777_101;
      const mk = async (body: Record<string, unknown>) => (await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: { market, ...body } })).body.alert.id as string;
      const supply = await mk({ item: K2, kind: 'supplyBelow', value: 0 });
      const below = await mk({ item: K2, kind: 'below', value: 2 ** 53 - 1 });
      const noRow = await mk({ item: 777_199, kind: 'supplyBelow', value: 2 ** 31 - 1 });
      await local.advance(10 * MINUTE);
      await upload([[K2, 10, 3], [K3, 10, 3]], true);
      expect(await alertById(supply)).toMatchObject({ armed: true, last: null });
      expect(await alertById(below)).toMatchObject({ armed: false });
      await local.advance(10 * MINUTE);
      const t = await local.now();
      await upload([[K3, 10, 3]], true);
      expect(await alertById(supply)).toMatchObject({ armed: false, last: { at: t, hits: [[K2, null, 0]] } });
      // `below` re-arms: a null price never holds.
      expect(await alertById(below)).toMatchObject({ armed: true });
      expect(await alertById(noRow)).toMatchObject({ armed: true, last: null });
    });

    it('rise and fall compare exactly against the close of the newest day candle before the evaluation day', async () => {
      const R = 777_200;
      const mk = async (kind: string, value: number) =>
        (await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: { market, item: R, kind, value } })).body.alert.id as string;
      await local.advance(10 * MINUTE);
      await upload([[R, 1000, 1]]);
      const [rise50, rise51, fall50] = [await mk('rise', 50), await mk('rise', 51), await mk('fall', 50)];
      // Same day: no ref yet (the candle is of the evaluation's own day).
      await local.advance(10 * MINUTE);
      await upload([[R, 5000, 1]]);
      expect(await alertById(rise50)).toMatchObject({ armed: true, last: null });
      // Next day: ref = 5000 (the day's close).
      const now = await local.now();
      await local.setClock((Math.floor(now / DAY) + 1) * DAY + HOUR);
      await upload([[R, 7500, 1]]);
      expect(await alertById(rise50)).toMatchObject({ armed: false, last: { hits: [[R, 7500, 1]] } });
      expect(await alertById(rise51)).toMatchObject({ armed: true, last: null });
      await local.advance(10 * MINUTE);
      await upload([[R, 2500, 1]]);
      expect(await alertById(fall50)).toMatchObject({ armed: false, last: { hits: [[R, 2500, 1]] } });
    });
  });

  describe('alerts: whole-market deal over real merges', () => {
    const market = 'forever.rp.horde.us';
    const A = 880_001;
    const B = 880_002;
    const upload = async (at: number, a: number, b: number) => {
      const { key } = await freshKey();
      const res = await local.api('POST', '/api/v1/ah/books', { token: key, body: bookOf(at, [[A, a, 2], [B, b, 3]], false, market) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await local.settle();
    };

    it('fires for items newly holding, deepest discount first; remembers the set; PUT forgets it and keeps last', async () => {
      const owner = await signIn({ plan: 'premium' });
      const c = await local.now();
      const d0 = Math.floor(c / DAY);
      // Day closes of 100 on three days: d0 - 1, d0, d0 + 1.
      await upload(c - DAY + MINUTE, 100, 100);
      await upload(c - 1000, 100, 100);
      await local.setClock((d0 + 1) * DAY + HOUR);
      await upload((d0 + 1) * DAY + HOUR - 1000, 100, 100);
      await local.setClock((d0 + 2) * DAY + HOUR);
      const input = { market, item: 0, kind: 'deal', value: 50 };
      const created = await local.api('POST', '/api/v1/market/alerts', { token: owner.token, body: input });
      expect(created.body.alert).toMatchObject({ item: 0, armed: true, last: null });
      const id = created.body.alert.id as string;
      const get = async (): Promise<unknown> =>
        ((await local.api('GET', '/api/v1/market/alerts', { token: owner.token })).body.alerts as Array<{ id: string }>).find((a) => a.id === id);
      const t1 = await local.now();
      await upload(t1 - 1000, 40, 90);
      expect(await get()).toMatchObject({ armed: true, last: { at: t1, hits: [[A, 40, 2]] } });
      await local.advance(10 * MINUTE);
      const t2 = await local.now();
      // B now holds exactly at the bound (50 * 100 <= 100 * 50); A is remembered.
      await upload(t2 - 1000, 45, 50);
      expect(await get()).toMatchObject({ armed: true, last: { at: t2, hits: [[B, 50, 3]] } });
      await local.advance(10 * MINUTE);
      await upload((await local.now()) - 1000, 45, 50);
      expect(await get()).toMatchObject({ armed: true, last: { at: t2, hits: [[B, 50, 3]] } });
      const put = await local.api('PUT', `/api/v1/market/alerts/${id}`, { token: owner.token, body: input });
      expect(put.body.alert).toMatchObject({ armed: true, last: { at: t2, hits: [[B, 50, 3]] } });
      await local.advance(10 * MINUTE);
      const t3 = await local.now();
      await upload(t3 - 1000, 45, 50);
      expect(await get()).toMatchObject({ armed: true, last: { at: t3, hits: [[A, 45, 2], [B, 50, 3]] } });
    });
  });

  describe('boards', () => {
    let token: string;
    const put = (body: unknown) => local.api('PUT', '/api/v1/market/boards', { token, body });
    const widget = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'price-chart_1', ...extra });
    beforeAll(async () => {
      token = (await signIn()).token;
    });

    it('accepts every rule at its bound: 40-char ids, 60-char names, 24 widgets, 20 dashboards, 50 screens', async () => {
      const id40 = 'A'.repeat(39) + '_';
      const doc = {
        dashboards: [
          { id: id40, name: 'n'.repeat(60), widgets: Array.from({ length: 24 }, (_, i) => widget(`w${i}`, { cfg: { k: i } })) },
          ...Array.from({ length: 19 }, (_, i) => ({ id: `b${i}`, name: 'b', widgets: [widget('w0')] })),
        ],
        screens: Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, name: 's', filters: { q: i } })),
      };
      const res = await put(doc);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual(doc);
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual(doc);
    });

    it('answers 400 bad_request one step past a rule, 409 too_many with limit past the counts', async () => {
      const board = (over: Record<string, unknown>) => ({ dashboards: [{ id: 'b', name: 'b', widgets: [], ...over }], screens: [] });
      const bad: unknown[] = [
        board({ id: 'A'.repeat(41) }),
        board({ id: 'a b' }),
        board({ id: '' }),
        board({ name: '' }),
        board({ name: 'n'.repeat(61) }),
        board({ widgets: Array.from({ length: 25 }, (_, i) => widget(`w${i}`)) }),
        board({ widgets: [widget('w'), widget('w')] }),
        board({ widgets: [{ id: 'w', type: 'Price' }] }),
        board({ widgets: [{ id: 'w', type: 'x'.repeat(33) }] }),
        board({ widgets: [{ id: 'w' }] }),
        board({ widgets: [{ type: 'x' }] }),
        board({ widgets: ['x'] }),
        { dashboards: [{ id: 'b', name: 'b', widgets: [] }, { id: 'b', name: 'c', widgets: [] }], screens: [] },
        { dashboards: [], screens: [{ id: 's', name: 's' }] },
        { dashboards: [] },
        [],
      ];
      for (const body of bad) {
        const res = await put(body);
        expect({ body, status: res.status, error: res.body?.error }).toEqual({ body, status: 400, error: 'bad_request' });
      }
      // The same widget id on two boards is fine.
      const twin = { dashboards: [{ id: 'a', name: 'a', widgets: [widget('w')] }, { id: 'b', name: 'b', widgets: [widget('w')] }], screens: [] };
      expect((await put(twin)).status).toBe(200);
      const dash21 = { dashboards: Array.from({ length: 21 }, (_, i) => ({ id: `b${i}`, name: 'b', widgets: [] })), screens: [] };
      expect(await put(dash21)).toMatchObject({ status: 409, body: { error: 'too_many', limit: 20 } });
      const screens51 = { dashboards: [], screens: Array.from({ length: 51 }, (_, i) => ({ id: `s${i}`, name: 's', filters: {} })) };
      expect(await put(screens51)).toMatchObject({ status: 409, body: { error: 'too_many', limit: 50 } });
      expect((await local.api('GET', '/api/v1/market/boards', { token })).body).toEqual(twin);
    });

    it('stores exactly 65536 bytes of JSON and answers 413 too_large at 65537', async () => {
      const docOf = (len: number) => ({ dashboards: [], screens: [{ id: 's', name: 's', filters: { p: 'x'.repeat(len) } }] });
      const overhead = JSON.stringify(docOf(0)).length;
      const exact = docOf(65536 - overhead);
      expect(JSON.stringify(exact).length).toBe(65536);
      expect((await put(exact)).status).toBe(200);
      expect(await put(docOf(65537 - overhead))).toMatchObject({ status: 413, body: { error: 'too_large' } });
    });
  });

  describe('Web Push routes', () => {
    it('answers 401 to anonymous callers on every push route', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/push/key'],
        ['GET', '/api/v1/push/subscription'],
        ['PUT', '/api/v1/push/subscription'],
        ['DELETE', '/api/v1/push/subscription'],
      ]) {
        const res = await local.api(method, path, { body: method === 'GET' ? undefined : {}, headers: anonHeaders() });
        expect({ method, status: res.status, error: res.body?.error }).toEqual({ method, status: 401, error: 'unauthenticated' });
      }
    });

    it('answers {deleted: false} for an endpoint the account does not hold, and 400 without an endpoint', async () => {
      const { token } = await signIn();
      expect((await local.api('DELETE', '/api/v1/push/subscription', { token, body: { endpoint: 'https://push.example/none' } })).body).toEqual({ deleted: false });
      expect(await local.api('DELETE', '/api/v1/push/subscription', { token, body: {} })).toMatchObject({ status: 400, body: { error: 'bad_request' } });
      expect(await local.api('PUT', '/api/v1/push/subscription', { token, body: {} })).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    });
  });

  describe('item pages and downloads', () => {
    it('caches an item page until the next hour, in seconds rounded up', async () => {
      const now = await local.now();
      const next = (Math.floor(now / HOUR) + 1) * HOUR;
      const res = await fetch(`${local.base}/item/2589?m=forever.normal.alliance.us`, { headers: anonHeaders() });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe(`public, max-age=${Math.ceil((next - now) / 1000)}`);
      expect(res.headers.get('vary')).toMatch(/Accept/);
    });

    it('redirects the desktop download with 302 under {cdn_base}releases/downloads/', async () => {
      const res = await fetch(`${local.base}/api/v1/downloads/desktop/latest`, { redirect: 'manual', headers: anonHeaders() });
      expect(res.status).toBe(302);
      const cfg = (await local.api('GET', '/api/v1/config', { headers: anonHeaders() })).body;
      expect(res.headers.get('location')).toMatch(new RegExp(`^${cfg.cdnBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}releases/downloads/.+`));
    });
  });
});
