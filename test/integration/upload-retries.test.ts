/**
 * Integration (issue 10, point 4; spec Uploads "Retry"): repeats of one upload that race its first answer
 * get that answer, not 409 `too_soon`, and change nothing; different books raced by one caller still meet the
 * 5-minute limit; a first attempt that dies between its claim and its answer does not wedge its repeats.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketPages } from '../../shared/ports/market';
import { listFiles, makeBook, uploadBook } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;

describe('concurrent retries follow the retry rule', () => {
  let local: Local;
  let store: MarketPages;
  /**
   * The prototype of the market pages behind every function's port: the DynamoDB adapter on the engines, the
   * memory fake on the memory mode (a port decorator is a Proxy, which answers its target's prototype). Patching
   * it makes one call of whichever backend runs fail or hang.
   */
  const pagesOfBackend = (): MarketPages => Object.getPrototypeOf(local.runtime.operator.market.latest);

  beforeAll(async () => {
    local = await startLocal();
    store = local.runtime.operator.market.latest;
  });
  afterAll(() => local.close());

  /** Sends the same book `n` times at once; answers in sending order. */
  const burst = (token: string, book: unknown, n: number) => Promise.all(Array.from({ length: n }, () => uploadBook(local, token, book)));

  async function expectOneMerge(market: string, at: number): Promise<void> {
    await local.settle();
    expect((await store.meta(market)).seq).toBe(1);
    const scans = await local.runtime.operator.market.scans.between(market, 0, await local.now());
    expect(scans.map((s) => s.at)).toEqual([at]);
    expect(await listFiles(local, `books/v1/${market}/`)).toHaveLength(1);
    expect(local.runtime.queues.deadLetters).toEqual([]);
  }

  it('answers 10 concurrent identical uploads of one API key with the first answer and merges the book once', async () => {
    const market = 'forever.normal.alliance.us';
    const key = await local.apiKey((await local.user()).id);
    const book = makeBook((await local.now()) - 2 * MINUTE, { market });
    const answers = await burst(key, book, 10);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers[0].body).toEqual({ at: book.at, credited: true });
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    await expectOneMerge(market, book.at);
    // A later repeat still gets the same answer.
    expect(await uploadBook(local, key, book)).toEqual({ status: 200, body: answers[0].body });
  });

  it('answers 10 concurrent identical uploads of one device with the first answer and merges the book once', async () => {
    const market = 'forever.pvp.alliance.us';
    const device = await pairDevice(local, (await local.user()).id);
    const book = makeBook((await local.now()) - 2 * MINUTE, { market });
    const answers = await burst(device.token, book, 10);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers[0].body).toMatchObject({ at: book.at });
    await expectOneMerge(market, book.at);
  });

  it('still answers two different books raced by one caller with one 200 and one 409 too_soon', async () => {
    const market = 'forever.rp.alliance.us';
    const key = await local.apiKey((await local.user()).id);
    const now = await local.now();
    const [a, b] = await Promise.all([
      uploadBook(local, key, makeBook(now - 3 * MINUTE, { market })),
      uploadBook(local, key, makeBook(now - 2 * MINUTE, { market })),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a, b].find((x) => x.status === 409)?.body).toMatchObject({ error: 'too_soon' });
    await local.settle();
    expect((await store.meta(market)).seq).toBe(1);
    // The refused book's claim was released: after the limit passes it is accepted like any new book.
    const refused = a.status === 409 ? now - 3 * MINUTE : now - 2 * MINUTE;
    await local.advance(5 * MINUTE);
    expect((await uploadBook(local, key, makeBook(refused, { market }))).status).toBe(200);
  });

  it('does not wedge the repeats of a first attempt that died between its claim and its answer', async () => {
    const market = 'forever.normal.horde.us';
    const key = await local.apiKey((await local.user()).id);
    const book = makeBook((await local.now()) - 2 * MINUTE, { market });
    // The first attempt stores and enqueues the book, then never answers (its function died).
    local.runtime.queues.autoRun = false;
    const meta = pagesOfBackend().meta;
    let hung = false;
    pagesOfBackend().meta = function (m: string) {
      if (m === market && !hung) {
        hung = true;
        return new Promise(() => undefined);
      }
      return meta.call(this, m);
    };
    const abort = new AbortController();
    try {
      const first = fetch(`${local.base}/api/v1/ah/books`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(book),
        signal: abort.signal,
      }).catch(() => undefined);
      await expect.poll(() => hung, { timeout: 60_000 }).toBe(true);
      // While the first attempt may still be running, a repeat waits a little, then is told to try again.
      expect(await uploadBook(local, key, book)).toMatchObject({ status: 503, body: { error: 'storage_failed' } });
      abort.abort();
      await first;
    } finally {
      pagesOfBackend().meta = meta;
      local.runtime.queues.autoRun = true;
    }
    // Once the first attempt's lease is over, a repeat takes its place, and the book still merges once.
    await local.advance(MINUTE);
    const repeat = await uploadBook(local, key, book);
    expect(repeat).toMatchObject({ status: 200, body: { at: book.at } });
    expect(await uploadBook(local, key, book)).toEqual(repeat);
    await local.settle();
    expect((await store.meta(market)).seq).toBe(1);
    expect(local.runtime.queues.deadLetters).toEqual([]);
    expect(local.runtime.queues.depth('merge-rejected')).toBe(0);
  });
});
