import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketPages } from '../../shared/ports/market';
import { makeBook, uploadBook } from '../support/books';
import { type Local, startLocal } from '../support/local';
import { bookOf, HOUR, MINUTE } from '../support/market-books';

/** The EMF lines (metrics) and the log lines among the lines heard. */
type Emf = Record<string, unknown> & { _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][] }> } };
const emf = (lines: string[]) => lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Emf);
const logs = (lines: string[]) => lines.filter((l) => !l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
/** The merge function's count of `name` over the lines, as its alarm sums it: dimension `service` only. */
const counted = (lines: string[], name: string) =>
  emf(lines)
    .filter((l) => l.service === 'merge' && name in l)
    .map((l) => {
      expect(l._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
      return [l[name]].flat().reduce((a: number, v) => a + Number(v), 0);
    })
    .reduce((a, b) => a + b, 0);

/**
 * Issue 23, point 10: contract-level risks are watched, not only written down. The spec's answers stay (the
 * books merge, the replay earns credit); the merge counts `merge_blanked_market` when one complete book marks
 * more than half of the market's listed keys gone, and `merge_snapshot_replay` when a credited book's lowest
 * buyouts are the last hourly snapshot's prices (at least 20 items compared, 95 % equal), each with a warning
 * that names the market, the book's time and the uploader's opaque hash. Alarms on both: test/infra.
 */
describe('the merge watches books that blank a market or replay the hourly snapshot', () => {
  let local: Local;
  let store: MarketPages;
  const heard: string[] = [];
  const uploader = async () => local.apiKey((await local.user({ plan: 'free' })).id);

  beforeAll(async () => {
    // A quarter past an hour, so a book and the next hour's snapshot are apart.
    local = await startLocal({ clockStart: Date.UTC(2026, 10, 2, 10, 15) });
    store = local.runtime.operator.market.latest;
    local.runtime.tapLog((line) => heard.push(line));
  });
  afterAll(() => local.close());

  it('counts a complete book that marks most of the market gone (one entry, 4 minutes ahead), and still merges it', async () => {
    const market = 'forever.pvp.alliance.us';
    const now = await local.now();
    heard.length = 0;
    expect((await uploadBook(local, await uploader(), makeBook(now - 10 * MINUTE, { market, keys: 120 }))).body).toEqual({
      at: now - 10 * MINUTE,
      credited: true,
    });
    await local.settle();
    // Replacing every key's price is no blanking: nothing was marked gone.
    expect((await uploadBook(local, await uploader(), makeBook(now - 5 * MINUTE, { market, keys: 120, price: (i) => 20_000 + i }))).status).toBe(200);
    await local.settle();
    expect(counted(heard, 'merge_blanked_market')).toBe(0);
    // Half the listed keys gone is not more than half.
    expect((await uploadBook(local, await uploader(), makeBook(now - 4 * MINUTE, { market, keys: 60 }))).status).toBe(200);
    await local.settle();
    expect(counted(heard, 'merge_blanked_market')).toBe(0);

    const blank = makeBook(now + 4 * MINUTE, { market, keys: 1 });
    expect((await uploadBook(local, await uploader(), blank)).body).toEqual({ at: blank.at, credited: false, reason: 'too_small' });
    await local.settle();
    // The spec's answer is unchanged: the book merged and the market shows one listed key.
    const rows = await store.rows(market);
    expect([...rows.values()].filter((r) => r.price !== null)).toHaveLength(1);
    expect(counted(heard, 'merge_blanked_market')).toBe(1);
    const warning = logs(heard).filter((l) => l.message === 'merge: one complete book marked most of the market gone');
    expect(warning).toEqual([expect.objectContaining({ level: 'warn', market, at: blank.at, listedBefore: 60, gone: 59, uploader: expect.any(String) })]);
  });

  it('counts a credited book whose prices are the last hourly snapshot’s, and still credits it', async () => {
    const market = 'forever.rp.horde.us';
    const start = await local.now();
    heard.length = 0;
    const first = makeBook(start - MINUTE, { market, keys: 120 });
    expect((await uploadBook(local, await uploader(), first)).body).toEqual({ at: first.at, credited: true });
    await local.settle();
    // Next hour: the snapshot publishes those rows.
    const hour1 = (Math.floor(start / HOUR) + 1) * HOUR;
    await local.setClock(hour1 + 5 * MINUTE);
    await local.tick();
    // A genuine scan (every price 1 % up) compared with the snapshot: nothing equal, nothing counted.
    const genuine = makeBook(hour1 + 4 * MINUTE, { market, keys: 120, price: (i) => Math.round((10_000 + i * 10) * 1.01) });
    expect((await uploadBook(local, await uploader(), genuine)).body).toEqual({ at: genuine.at, credited: true });
    await local.settle();
    expect(counted(heard, 'merge_snapshot_replay')).toBe(0);

    // The hour after: the public snapshot now holds the genuine scan's prices; a book made from it is a replay.
    const hour2 = hour1 + HOUR;
    await local.setClock(hour2 + 5 * MINUTE);
    await local.tick();
    const snapshot = (await local.api('GET', `/api/v1/ah/${market}/snapshot`)).body as { at: number; rows: [number, number | null, number, number][] };
    expect(snapshot.at).toBe(hour2);
    const listings = snapshot.rows.filter((r) => r[1] !== null).map(([key, price, quantity]): [number, number, number] => [key, price as number, quantity]);
    expect(listings).toHaveLength(120);
    const replay = bookOf(hour2 + 4 * MINUTE, listings, true, market);
    const replayer = await uploader();
    expect((await uploadBook(local, replayer, replay)).body).toEqual({ at: replay.at, credited: true });
    await local.settle();
    expect((await store.meta(market)).seq).toBe(3);
    expect(counted(heard, 'merge_snapshot_replay')).toBe(1);
    const warning = logs(heard).filter((l) => l.message === 'merge: a credited book repeats the last hourly snapshot');
    expect(warning).toEqual([expect.objectContaining({ level: 'warn', market, at: replay.at, compared: 120, same: 120 })]);
  });
});
