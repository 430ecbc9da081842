import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketPages } from '../../shared/ports/market';
import { cdnJson, listFiles, makeBook, uploadBook } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** Integration: the book outcomes of the credit rules, retries, duplicates, partners and the contributor window. */
describe('POST /api/v1/ah/books outcomes', () => {
  let local: Local;
  let now: number;
  let store: MarketPages;
  const seqOf = async (market: string) => (await store.meta(market)).seq;
  const account = async (input: Record<string, unknown> = {}) => {
    const user = await local.user(input);
    return { user, key: await local.apiKey(user.id), session: await local.session(user.id, { expiresIn: 86_400 }) };
  };
  const contributions = async (session: string) => (await local.api('GET', '/api/v1/contributions', { token: session })).body.scans as unknown[];

  beforeAll(async () => {
    local = await startLocal();
    now = await local.now();
    store = local.runtime.operator.market.latest;
  });
  afterAll(() => local.close());

  it('merges and credits a complete book of 100+ items: window extended, contribution recorded', async () => {
    const market = 'forever.normal.horde.us';
    const a = await account();
    const device = await pairDevice(local, a.user.id);
    const book = makeBook(now - MINUTE, { market });
    const res = await uploadBook(local, device.token, book, { gzip: true });
    expect(res).toEqual({ status: 200, body: { at: book.at, credited: true } });
    await local.settle();
    expect(await seqOf(market)).toBe(1);
    const me = (await local.api('GET', '/api/v1/me', { token: a.session })).body;
    expect(me.contributor).toEqual({ until: now + 14 * DAY, scans7d: 1 });
    expect(await contributions(a.session)).toEqual([{ market, at: book.at, kind: 'book', items: 120, complete: true, credited: true }]);
    // The uploader never appears in what is published: the book file carries no `via` or account, the change file no reader.
    const [file] = await listFiles(local, `books/v1/${market}/`);
    expect(file).toMatchObject({ contentType: 'application/json', contentEncoding: 'gzip', cacheControl: 'public, max-age=31536000, immutable' });
    expect(Object.keys(await cdnJson(local, file.key)).sort()).toEqual(['at', 'auctions', 'complete', 'entries', 'market', 'v']);
  });

  it('merges without credit: incomplete, then too_small (below 100 keys and a quarter of the listed items)', async () => {
    const market = 'forever.pvp.alliance.us';
    const a = await account();
    const b = await account();
    const c = await account();
    expect((await uploadBook(local, a.key, makeBook(now - 10 * MINUTE, { market, keys: 200, complete: false }))).body).toEqual({
      at: now - 10 * MINUTE,
      credited: false,
      reason: 'incomplete',
    });
    await local.settle();
    expect(await seqOf(market)).toBe(1);
    // 200 items listed in the last day: 49 keys are fewer than a quarter, 50 are not.
    expect((await uploadBook(local, b.key, makeBook(now - 9 * MINUTE, { market, keys: 49 }))).body).toEqual({
      at: now - 9 * MINUTE,
      credited: false,
      reason: 'too_small',
    });
    expect((await uploadBook(local, c.key, makeBook(now - 8 * MINUTE, { market, keys: 50 }))).body).toEqual({ at: now - 8 * MINUTE, credited: true });
    await local.settle();
    expect(await seqOf(market)).toBe(3);
    // With nothing listed, only the 100 keys count.
    const d = await account();
    expect((await uploadBook(local, d.key, makeBook(now - MINUTE, { market: 'forever.rp.alliance.us', keys: 99 }))).body).toMatchObject({
      credited: false,
      reason: 'too_small',
    });
  });

  it('merges without credit when the account had a credited upload of the market in the last 5 minutes (too_soon_credit)', async () => {
    const market = 'forever.rp.horde.us';
    const a = await account();
    const first = await pairDevice(local, a.user.id, 'one');
    const second = await pairDevice(local, a.user.id, 'two');
    await local.settle();
    const seq = await seqOf(market);
    expect((await uploadBook(local, first.token, makeBook(now - 7 * MINUTE, { market }))).body).toMatchObject({ credited: true });
    expect((await uploadBook(local, second.token, makeBook(now - 6 * MINUTE, { market }))).body).toEqual({
      at: now - 6 * MINUTE,
      credited: false,
      reason: 'too_soon_credit',
    });
    await local.advance(5 * MINUTE);
    now = await local.now();
    expect((await uploadBook(local, second.token, makeBook(now - 5 * MINUTE, { market }))).body).toMatchObject({ credited: true });
    await local.settle();
    expect(await seqOf(market)).toBe(seq + 3);
  });

  it("quarantines a book that disagrees with other accounts' recent readings: not merged, kept privately", async () => {
    const market = 'forever.normal.alliance.us';
    const a = await account();
    const b = await account();
    expect((await uploadBook(local, a.key, makeBook(now - 4 * MINUTE, { market, keys: 30 }))).body).toMatchObject({ credited: false, reason: 'too_small' });
    await local.settle();
    const seq = await seqOf(market);
    const wild = makeBook(now - 3 * MINUTE, { market, keys: 30, price: (i) => (10_000 + i * 10) * 3 });
    expect((await uploadBook(local, b.key, wild)).body).toEqual({ at: now - 3 * MINUTE, credited: false, reason: 'disagrees' });
    await local.settle();
    expect(await seqOf(market)).toBe(seq);
    expect((await store.rows(market)).get(1000)?.price).toBe(10_000);
    const [q] = await listFiles(local, `quarantine/${market}/`);
    expect(q.key).toMatch(new RegExp(`^quarantine/${market.replace(/\./g, '\\.')}/${wild.at}-[A-Za-z0-9_-]{22}\\.json\\.gz$`));
    expect(q.cacheControl).toBe('private, no-store');
    expect(await local.runtime.operator.market.scans.between(market, wild.at, wild.at)).toEqual([]);
    expect(await contributions(b.session)).toEqual([{ market, at: wild.at, kind: 'book', items: 30, complete: true, credited: false, reason: 'disagrees' }]);
    // An account's own readings are never held against it: the same prices from the first account merge.
    await local.advance(5 * MINUTE);
    now = await local.now();
    expect((await uploadBook(local, a.key, { ...wild, at: now - MINUTE })).body).toEqual({ at: now - MINUTE, credited: true });
    await local.settle();
    expect(await seqOf(market)).toBe(seq + 1);
  });

  it("answers a retry with its first answer and changes nothing; another caller's same book is a duplicate", async () => {
    const market = 'forever.pvp.horde.us';
    const a = await account();
    const b = await account();
    const c = await account();
    const older = makeBook(now - 20 * MINUTE, { market });
    const newer = makeBook(now - 2 * MINUTE, { market, first: 5000 });
    expect((await uploadBook(local, b.key, newer)).body).toEqual({ at: newer.at, credited: true });
    await local.settle();
    const first = await uploadBook(local, a.key, older);
    // `at` is the market's newest merged observation when that is newer than the book.
    expect(first.body).toEqual({ at: newer.at, credited: true });
    await local.settle();
    const seq = await seqOf(market);
    const again = await uploadBook(local, a.key, older, { gzip: true });
    expect(again).toEqual(first);
    const dup = await uploadBook(local, c.key, { ...older, entries: older.entries.slice(1), auctions: older.auctions - 1 });
    expect(dup).toEqual({ status: 200, body: { at: newer.at, credited: false, reason: 'duplicate' } });
    await local.settle();
    expect(await seqOf(market)).toBe(seq);
    expect((await listFiles(local, `books/v1/${market}/${older.at}-`)).length).toBe(1);
    expect(await contributions(a.session)).toHaveLength(1);
    // The duplicate took no 5-minute slot: its caller still uploads at once.
    expect((await uploadBook(local, c.key, makeBook(now - MINUTE, { market, first: 7000 }))).status).toBe(200);
  });

  it("limits a partner per (via, market) and credits the partner's account", async () => {
    const market = 'forever.normal.horde.us';
    const p = await account({ partner: true });
    const one = await uploadBook(local, p.key, makeBook(now - 3 * MINUTE, { market, via: 'alice', first: 3000 }));
    const two = await uploadBook(local, p.key, makeBook(now - 2 * MINUTE, { market, via: 'bob', first: 3000 }));
    const three = await uploadBook(local, p.key, makeBook(now - MINUTE, { market, via: 'alice', first: 3000 }));
    expect([one.body, two.body, three.status]).toEqual([
      { at: expect.any(Number), credited: true },
      { at: expect.any(Number), credited: false, reason: 'too_soon_credit' },
      409,
    ]);
    const me = (await local.api('GET', '/api/v1/me', { token: p.session })).body;
    expect(me.contributor).toMatchObject({ until: now + 14 * DAY, scans7d: 1 });
    expect(await contributions(p.session)).toHaveLength(2);
  });
});
