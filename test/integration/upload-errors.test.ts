import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFiles, makeBook, OTHER_MARKET, rawUpload, uploadBook, withEntries } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const MiB = 1024 * 1024;

/** Integration: every refusal of POST /api/v1/ah/books, in the DESIGN's check order, over real HTTP. */
describe('POST /api/v1/ah/books refusals', () => {
  let local: Local;
  let now: number;
  /** A fresh API key (its own caller, so the 5-minute limit never carries over between tests). */
  const freshKey = async (input: Record<string, unknown> = {}, scopes?: string[]) => {
    const user = await local.user(input);
    return { user, key: await local.apiKey(user.id, scopes) };
  };
  let ats = 0;
  /** A distinct `at` a little before the clock (the duplicate rule never meets it). */
  const at = () => now - MINUTE - ++ats;

  beforeAll(async () => {
    local = await startLocal();
    now = await local.now();
  });
  afterAll(() => local.close());

  it('answers 401 unauthenticated to anonymous callers and bad credentials', async () => {
    const anon = await uploadBook(local, undefined, makeBook(at()));
    expect(anon).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    const bad = await uploadBook(local, 'svc_dev_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', makeBook(at()));
    expect(bad).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
  });

  it('answers 403 devices_only to a website session', async () => {
    const u = await local.user();
    const session = await local.session(u.id);
    const res = await uploadBook(local, session, makeBook(at()), { headers: { origin: local.base } });
    expect(res).toMatchObject({ status: 403, body: { error: 'devices_only' } });
  });

  it('answers 403 forbidden with the feature a device or an API key lacks', async () => {
    const withheld = await local.user({ withhold: ['upload.device'] });
    const device = await pairDevice(local, withheld.id);
    expect(await uploadBook(local, device.token, makeBook(at()))).toMatchObject({ status: 403, body: { error: 'forbidden', feature: 'upload.device' } });
    const { key } = await freshKey({}, ['api.read']);
    expect(await uploadBook(local, key, makeBook(at()))).toMatchObject({ status: 403, body: { error: 'forbidden', feature: 'api.upload' } });
  });

  it('answers 403 not_partner to `via` from anyone but a partner API key, before any body rule', async () => {
    const { user, key } = await freshKey();
    expect(await uploadBook(local, key, makeBook(at(), { via: 'shop-1' }))).toMatchObject({ status: 403, body: { error: 'not_partner' } });
    expect(await uploadBook(local, key, { ...makeBook(at()), market: 'nope', via: '!!' })).toMatchObject({ status: 403, body: { error: 'not_partner' } });
    const partner = await local.user({ partner: true });
    const device = await pairDevice(local, partner.id);
    expect(await uploadBook(local, device.token, makeBook(at(), { via: 'shop-1' }))).toMatchObject({ status: 403, body: { error: 'not_partner' } });
    expect(user.id).toBeTruthy();
  });

  it('answers 400 bad_via to a malformed `via` of a partner', async () => {
    const { key } = await freshKey({ partner: true });
    for (const via of ['', 'a b', 'x'.repeat(65), 'ünï', 7]) {
      expect(await uploadBook(local, key, { ...makeBook(at()), via })).toMatchObject({ status: 400, body: { error: 'bad_via' } });
    }
  });

  it('answers 400 bad_market to a missing or unknown market', async () => {
    const { key } = await freshKey();
    const { market: _m, ...noMarket } = makeBook(at());
    expect(await uploadBook(local, key, noMarket)).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    expect(await uploadBook(local, key, { ...makeBook(at()), market: 'forever.normal.alliance.eu' })).toMatchObject({
      status: 400,
      body: { error: 'bad_market' },
    });
  });

  it('answers 400 bad_book to every class of bad body', async () => {
    const { key } = await freshKey();
    const good = makeBook(at(), { keys: 3 });
    const e = good.entries;
    const cases: Array<[string, unknown]> = [
      ['not JSON', '{"market": '],
      ['not an object', '[1,2,3]'],
      ['null', 'null'],
      ['at missing', { ...good, at: undefined }],
      ['at not an integer', { ...good, at: good.at + 0.5 }],
      ['complete not a boolean', { ...good, complete: 'yes' }],
      ['auctions negative', { ...good, auctions: -1 }],
      ['auctions not the sum of n', { ...good, auctions: good.auctions + 1 }],
      ['entries not an array', { ...good, entries: {} }],
      ['entry not a 5-tuple', withEntries(good, [[e[0][0], 1, 1, 1]] as never)],
      ['entry key invalid (item 0)', withEntries(good, [[2147483648, 5, 1, 1, 1]])],
      ['entry key not an integer', withEntries(good, [[1.5, 5, 1, 1, 1]])],
      ['price negative', withEntries(good, [[1000, -1, 1, 1, 1]])],
      ['stack 0', withEntries(good, [[1000, 5, 0, 1, 1]])],
      ['band 5', withEntries(good, [[1000, 5, 1, 5, 1]])],
      ['n 0', withEntries(good, [[1000, 5, 1, 1, 0]])],
      ['unsorted', withEntries(good, [e[1], e[0]])],
      ['duplicate entries', withEntries(good, [e[0], e[0]])],
      [
        'too many entries',
        withEntries(
          good,
          Array.from({ length: 200_001 }, (_, i) => [1000 + i, 5, 1, 1, 1]),
        ),
      ],
    ];
    for (const [name, body] of cases) {
      const res = await uploadBook(local, key, body);
      expect({ name, status: res.status, error: res.body?.error }).toEqual({ name, status: 400, error: 'bad_book' });
    }
    const corrupt = await rawUpload(local, Buffer.from('not gzip at all'), {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(corrupt).toMatchObject({ status: 400, body: { error: 'bad_book' } });
  });

  it('answers 400 bad_book outside the clock window; its bounds are inclusive', async () => {
    const outside = [now - 24 * HOUR - 1, now + 5 * MINUTE + 1];
    const inside = [now - 24 * HOUR, now + 5 * MINUTE];
    for (const t of outside) {
      const { key } = await freshKey();
      const res = await uploadBook(local, key, makeBook(t, { market: OTHER_MARKET }));
      expect(res).toMatchObject({ status: 400, body: { error: 'bad_book', message: expect.stringContaining('clock window') } });
    }
    for (const t of inside) {
      const { key } = await freshKey();
      expect((await uploadBook(local, key, makeBook(t, { market: OTHER_MARKET }))).status).toBe(200);
    }
  });

  it("answers 409 too_soon while less than 5 minutes passed since the caller's last book of the market", async () => {
    const { key } = await freshKey();
    const other = await freshKey();
    expect((await uploadBook(local, key, makeBook(now - 10 * MINUTE, { market: OTHER_MARKET, first: 9000 }))).status).toBe(200);
    // Another market and another caller are not limited by it.
    expect((await uploadBook(local, key, makeBook(now - 10 * MINUTE, { first: 9000 }))).status).toBe(200);
    expect((await uploadBook(local, other.key, makeBook(now - 9 * MINUTE, { market: OTHER_MARKET, first: 9000 }))).status).toBe(200);
    await local.advance(5 * MINUTE - 1);
    now = await local.now();
    expect(await uploadBook(local, key, makeBook(now - 8 * MINUTE, { market: OTHER_MARKET, first: 9000 }))).toMatchObject({
      status: 409,
      body: { error: 'too_soon' },
    });
    await local.advance(1);
    now = await local.now();
    expect((await uploadBook(local, key, makeBook(now - 7 * MINUTE, { market: OTHER_MARKET, first: 9000 }))).status).toBe(200);
  });

  it('answers 413 too_large above 32 MiB decompressed (a gzip bomb) and above 32 MiB compressed', async () => {
    const { key } = await freshKey();
    const bomb = gzipSync(Buffer.alloc(32 * MiB + 1, 0x20));
    expect(bomb.length).toBeLessThan(MiB);
    const res = await rawUpload(local, bomb, { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res).toMatchObject({ status: 413, body: { error: 'too_large' } });
    // Past API Gateway's 10 MB the gateway itself answers, in its own shape (docs/deploying.md: deviations).
    const big = await rawUpload(local, Buffer.alloc(32 * MiB + 1, 0x20), { authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    expect(big).toMatchObject({ status: 413, body: { message: 'Request Entity Too Large' } });
  });

  it('answers 503 storage_failed when the bucket fails, with nothing half-written', async () => {
    const { user, key } = await freshKey();
    const market = 'forever.rp.horde.us';
    const book = makeBook(now - 2 * MINUTE, { market, first: 20_000 });
    await local.faults({ storage: 'down' });
    try {
      expect(await uploadBook(local, key, book)).toMatchObject({ status: 503, body: { error: 'storage_failed' } });
    } finally {
      await local.faults({ storage: 'up' });
    }
    await local.settle();
    const store = local.runtime.operator.market.latest;
    expect((await store.meta(market)).seq).toBe(0);
    expect(await listFiles(local, `books/v1/${market}/`)).toEqual([]);
    expect(await listFiles(local, `quarantine/${market}/`)).toEqual([]);
    const session = await local.session(user.id);
    expect((await local.api('GET', '/api/v1/contributions', { token: session })).body.scans).toEqual([]);
    // No limit, claim, first answer or credit interval survived: the same upload now goes through, credited.
    expect(await uploadBook(local, key, book)).toMatchObject({ status: 200, body: { at: book.at, credited: true } });
    await local.settle();
    expect((await store.meta(market)).seq).toBe(1);
    expect(await listFiles(local, `books/v1/${market}/`)).toHaveLength(1);
  });
});
