import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import type { MarketMeta, MarketPages } from '../../shared/ports/market';
import { cdnJson, listFiles, makeBook, uploadBook } from '../support/books';
import { type Local, startLocal } from '../support/local';

const CLEAN = 'forever.normal.alliance.us';
const CRASH_FIRST_WRITE = 'forever.pvp.alliance.us';
const CRASH_BEFORE_COMMIT = 'forever.rp.alliance.us';

/**
 * Integration: a redelivered merge message changes nothing twice. The same two books go to three markets;
 * one merges cleanly, one crashes after its first write (the local `merge: crash-once` fault), one after
 * every write but the seq commit. All three must end in the same state.
 */
describe('redelivered merges', () => {
  let local: Local;
  let store: MarketPages;
  /**
   * The prototype of the market pages behind every function's port: the DynamoDB adapter on the engines, the
   * memory fake on the memory mode (a port decorator is a Proxy, which answers its target's prototype). Patching
   * it makes one call of whichever backend runs fail or hang.
   */
  const pagesOfBackend = (): MarketPages => Object.getPrototypeOf(local.runtime.operator.market.latest);
  let now: number;

  beforeAll(async () => {
    local = await startLocal();
    now = await local.now();
    store = local.runtime.operator.market.latest;
  });
  afterAll(() => local.close());

  /** Everything a merge leaves behind, with market-specific paths and caps taken out. */
  async function stateOf(market: string, at: number) {
    const meta: MarketMeta = await store.meta(market);
    const records = await local.runtime.operator.market.merges.after(market, 0, now);
    const pages: Record<string, unknown> = {};
    for (const [res, ms] of [
      ['m1', MINUTE_MS],
      ['h1', HOUR_MS],
      ['d1', DAY_MS],
    ] as const)
      pages[res] = [...(await store.candlePage(market, res, Math.floor(at / ms)))];
    return {
      meta: {
        seq: meta.seq,
        newestScanAt: meta.newestScanAt,
        firstMergeAt: meta.firstMergeAt,
        pending: meta.pending,
        book: { ...meta.currentBook, ref: undefined },
      },
      rows: [...(await store.rows(market))],
      pages,
      volume: [...(await store.volumePage(market, Math.floor(at / DAY_MS)))],
      records: records.map((r) => ({ seq: r.seq, at: r.at, mergedAt: r.mergedAt, bookAt: r.bookAt, checkpoint: r.checkpointPath !== undefined })),
      changes: await Promise.all(records.map(async (r) => (await cdnJson(local, r.changePath)).rows)),
      files: (await listFiles(local, `live/v1/${market}/`)).length,
      scans: (await local.runtime.operator.market.scans.between(market, 0, now)).map((s) => ({
        ...s,
        market: undefined,
      })),
    };
  }

  it('ends in the same state as a clean merge, whether it crashed after its first write or before its commit', async () => {
    const key = await local.apiKey((await local.user()).id);
    const t1 = now - 20 * MINUTE_MS;
    const t2 = now - 10 * MINUTE_MS;
    const markets = [CLEAN, CRASH_FIRST_WRITE, CRASH_BEFORE_COMMIT];
    for (const market of markets) expect((await uploadBook(local, key, makeBook(t1, { market, keys: 150 }))).status).toBe(200);
    await local.settle();
    await local.advance(5 * MINUTE_MS);

    // Book 2 drops 30 keys (gone rows) and replaces the current book (volume estimates).
    const second = (market: string) => makeBook(t2, { market, keys: 120, price: (i) => 9_000 + i });
    expect((await uploadBook(local, key, second(CLEAN))).status).toBe(200);
    await local.settle();
    await local.faults({ merge: 'crash-once' });
    expect((await uploadBook(local, key, second(CRASH_FIRST_WRITE))).status).toBe(200);
    await local.settle();
    const commit = pagesOfBackend().commitMeta;
    let armed = true;
    pagesOfBackend().commitMeta = async function (next, expected) {
      if (armed && next.market === CRASH_BEFORE_COMMIT) {
        armed = false;
        throw new Error('crashed before the seq commit');
      }
      return commit.call(this, next, expected);
    };
    try {
      expect((await uploadBook(local, key, second(CRASH_BEFORE_COMMIT))).status).toBe(200);
      await local.settle();
    } finally {
      pagesOfBackend().commitMeta = commit;
    }
    expect(armed).toBe(false);
    expect(local.runtime.queues.deadLetters).toEqual([]);

    const clean = await stateOf(CLEAN, t2);
    expect(clean.meta.seq).toBe(2);
    expect(clean.changes[1]).toHaveLength(150);
    expect(clean.volume.length).toBeGreaterThan(0);
    expect(await stateOf(CRASH_FIRST_WRITE, t2)).toEqual(clean);
    expect(await stateOf(CRASH_BEFORE_COMMIT, t2)).toEqual(clean);
  });
});
