import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookEntry } from '../../shared/domain/book';
import { anonAddresses, keyedUser } from '../support/accounts';
import { makeBook, uploadBook, withEntries } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';

/** Integration, black box: the spec's words on book uploads and credit, catalogue uploads and item data. */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const KEY_BASE = 2147483648;

describe('spec: uploads, catalogue uploads and item data', () => {
  let local: Local;
  const anonHeaders = anonAddresses();
  const freshKey = (input: Record<string, unknown> = {}) => keyedUser(local, input);
  const _signIn = async (input: Record<string, unknown> = {}) => {
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
        [
          'same key/price/stack/band twice',
          withEntries(good, [
            [1000, 5, 1, 1, 1],
            [1000, 5, 1, 1, 2],
          ]),
        ],
        [
          'descending band',
          withEntries(good, [
            [1000, 5, 1, 2, 1],
            [1000, 5, 1, 1, 1],
          ]),
        ],
        [
          'descending stack',
          withEntries(good, [
            [1000, 5, 2, 1, 1],
            [1000, 5, 1, 1, 1],
          ]),
        ],
        [
          'descending price',
          withEntries(good, [
            [1000, 6, 1, 1, 1],
            [1000, 5, 1, 1, 1],
          ]),
        ],
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

    // docs/deploying.md "Deviations from the spec forced by AWS": API Gateway (10 MB) and Lambda (6 MB) refuse a plain
    // 32 MiB body before the service sees it, as the local runtime now does; 32 MiB decompressed still fits.
    it('accepts a body of exactly 32 MiB decompressed from gzip; a plain one is refused by the gateway (413)', async () => {
      const now = await local.now();
      const MiB = 1024 * 1024;
      for (const [i, gzip] of [
        [1, false],
        [2, true],
      ] as const) {
        const { key } = await freshKey();
        const text = JSON.stringify(makeBook(now - 3 * MINUTE - i, { market: 'forever.normal.horde.us', first: 123_000 }));
        const exact = text + ' '.repeat(32 * MiB - Buffer.byteLength(text));
        expect(Buffer.byteLength(exact)).toBe(32 * MiB);
        const res = await uploadBook(local, key, exact, { gzip });
        if (gzip) expect({ gzip, status: res.status, body: res.body }).toMatchObject({ gzip, status: 200, body: { credited: expect.any(Boolean) } });
        else expect({ gzip, status: res.status, body: res.body }).toEqual({ gzip, status: 413, body: { message: 'Request Entity Too Large' } });
      }
      await local.settle();
    });

    it('answers 404 to the retired POST /api/v1/ah/scans, even for an uploader', async () => {
      const { key } = await freshKey();
      const res = await local.api('POST', '/api/v1/ah/scans', { token: key, body: makeBook((await local.now()) - MINUTE) });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found' });
    });

    it('answers 404 to the retired route whatever the credential: never 401 for a bad key, never 503 (issue 24.10)', async () => {
      const body = makeBook((await local.now()) - MINUTE);
      const bad = [{ token: 'ak_not_a_key' }, { token: 'svc_dev_garbled' }, { token: 'not.a.jwt' }, {}];
      for (const o of bad) {
        for (const method of ['POST', 'GET', 'DELETE']) {
          const res = await local.api(method, '/api/v1/ah/scans', { ...o, ...(method === 'POST' ? { body } : {}) });
          expect({ method, o, status: res.status, error: res.body?.error }).toEqual({ method, o, status: 404, error: 'not_found' });
        }
      }
      // The identity provider cannot be asked: a key would be 503 anywhere else, and is still 404 here.
      await local.faults({ identity: 'down' });
      try {
        const res = await local.api('POST', '/api/v1/ah/scans', { token: 'ak_unknown_while_down', body });
        expect(res.status).toBe(404);
      } finally {
        await local.faults({ identity: 'up' });
      }
    });
  });

  describe('POST /api/v1/ah/books: answers and credit rules', () => {
    it("answers `at` as the market's newest merged observation, not the late book's own", async () => {
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
      expect((await uploadBook(local, k3, makeBook(now - 17 * MINUTE, { market, keys: 5, first: 50 }))).body).toMatchObject({
        credited: false,
        reason: 'too_small',
      });
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
      // Books read almost a day ago (the oldest a book may be): their readings age out within minutes.
      const old = now - DAY + 2 * MINUTE;
      const a = await freshKey();
      const b = await freshKey();
      expect((await uploadBook(local, a.key, makeBook(old, { market, keys: 99, first: 10 }))).body).toEqual({ at: old, credited: false, reason: 'too_small' });
      await local.settle();
      // 99 rows are now listed: 99 keys are not fewer than a quarter of them.
      expect((await uploadBook(local, b.key, makeBook(old + 1, { market, keys: 30, first: 10 }))).body).toMatchObject({ credited: true });
      await local.settle();
      // Once those readings are more than a day old they no longer count: only the 100 keys do.
      await local.advance(5 * MINUTE);
      const later = await local.now();
      const c = await freshKey();
      expect((await uploadBook(local, c.key, makeBook(later - MINUTE, { market, keys: 30, first: 10 }))).body).toMatchObject({
        credited: false,
        reason: 'too_small',
      });
      const d = await freshKey();
      expect((await uploadBook(local, d.key, makeBook(later - MINUTE + 1, { market, keys: 100, first: 5000 }))).body).toMatchObject({ credited: true });
      await local.settle();
    });

    it("disagrees only when the lower median of |ln(price/reading)| over 20+ other accounts' fresh readings exceeds ln 2", async () => {
      const market = 'forever.normal.horde.us';
      // Past the books earlier tests put in this market, so the answers' `at` is the book's own.
      await local.advance(35 * MINUTE);
      const now = await local.now();
      const base = await freshKey();
      // 20 items read by another account at 10000 each.
      expect(
        (await uploadBook(local, base.key, makeBook(now - 30 * MINUTE, { market, keys: 20, first: 900_000, price: () => 10_000, complete: false }))).status,
      ).toBe(200);
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
      const ok = await uploadBook(
        local,
        stale.key,
        makeBook((await local.now()) - MINUTE, { market, keys: 20, first: 900_000, price: () => 200_000, complete: false }),
      );
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
      const book = makeBook(now - MINUTE, { market: 'forever.rp.alliance.us', keys: 100, first: 300_000 });
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
});
