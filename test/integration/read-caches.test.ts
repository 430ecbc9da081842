/**
 * What a warm API instance keeps between requests (issue 15 point 6: cost), on DynamoDB Local and the local S3
 * server: the live table's rows under the META version they belong to, the snapshot route's immutable hourly
 * file and its pointer for as long as the pointer's `Cache-Control` allows. Kept answers are the answers a
 * fresh instance (`clearReadCaches()`) gives; what changes the table (a merge, retention) shows at once.
 * Units are counted through the runtime (ConsumedCapacity per function, as the cost bench does).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearReadCaches } from '../../shared/market/read-cache';
import { CostMeter } from '../bench/cost-meter';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

describe('read caches of a warm API instance', () => {
  let local: Local;
  let premium: string;
  const meter = new CostMeter();
  const T0 = DEFAULT_START + 10 * MINUTE;

  /** The api function's units since the last call. */
  const apiUsage = () => {
    const u = meter.take().byFunction.get('api');
    return { rcu: u?.rcu ?? 0, s3Get: u?.s3Get ?? 0 };
  };
  const table = (since = 0) => local.api('GET', `/api/v1/ah/${MARKET}?since=${since}`, { token: premium });

  beforeAll(async () => {
    local = await startLocal();
    const u = await local.user({ plan: 'premium' });
    premium = await local.session(u.id, { expiresIn: 60 * 86_400 });
    // Incomplete books: rows of items not listed keep their reading time (retention ages them out below).
    await uploadAt(local, await uploaderKey(local), T0, [[11, 500, 3]], false);
    await uploadAt(local, await uploaderKey(local), T0 + 10 * MINUTE, [[22, 700, 1]], false);
    meter.install();
  });
  afterAll(async () => {
    meter.uninstall();
    await local?.close();
  });

  it('answers a second table read of the same seq from the kept rows: only the META read is paid', async () => {
    clearReadCaches();
    const first = await table();
    expect(first.status).toBe(200);
    expect(first.body.rows).toEqual([
      [11, 500, 3, T0],
      [22, 700, 1, T0 + 10 * MINUTE],
    ]);
    expect(apiUsage().rcu).toBeGreaterThan(1);
    const second = await table();
    expect(apiUsage().rcu).toBe(1);
    expect({ ...second.body, now: 0 }).toEqual({ ...first.body, now: 0 });
    // `since` filters the kept rows as it filters read ones.
    expect((await table(T0 + 5 * MINUTE)).body.rows).toEqual([[22, 700, 1, T0 + 10 * MINUTE]]);
    expect(apiUsage().rcu).toBe(1);
  });

  it('shows a merge at once: the next read after the merge has the new rows and seq', async () => {
    const before = await table();
    await uploadAt(local, await uploaderKey(local), T0 + 20 * MINUTE, [[11, 450, 2]], false);
    const after = await table();
    expect(after.body.seq).toBe(before.body.seq + 1);
    expect(after.body.rows).toEqual([
      [11, 450, 2, T0 + 20 * MINUTE],
      [22, 700, 1, T0 + 10 * MINUTE],
    ]);
    clearReadCaches();
    expect({ ...(await table()).body, now: 0 }).toEqual({ ...after.body, now: 0 });
  });

  it('shows retention removing a row older than 30 days at once, though no merge bumped seq', async () => {
    // Item 22 is read again just before its row would age out; item 11's reading (T0 + 20 min) ages out first.
    await uploadAt(local, await uploaderKey(local), T0 + 30 * DAY - HOUR, [[22, 800, 1]], false);
    const kept = await table();
    expect(kept.body.rows.map((r: number[]) => r[0])).toEqual([11, 22]);
    await local.setClock(T0 + 30 * DAY + 7 * HOUR);
    await local.settle();
    const after = await table();
    expect(after.body.seq).toBe(kept.body.seq);
    expect(after.body.rows).toEqual([[22, 800, 1, T0 + 30 * DAY - HOUR]]);
  });

  const snapshot = async (gzip: boolean) => {
    const res = await local.api('GET', `/api/v1/ah/${MARKET}/snapshot`, { headers: gzip ? { 'accept-encoding': 'gzip' } : { 'accept-encoding': 'identity' } });
    const h = (n: string) => res.headers.get(n);
    return { status: res.status, body: res.body, headers: [h('content-type'), h('content-encoding'), h('cache-control'), h('etag')] };
  };

  it('answers the snapshot from the kept hourly file and pointer, exactly as a fresh instance does', async () => {
    clearReadCaches();
    meter.take();
    const fresh = await snapshot(true);
    expect(fresh.status).toBe(200);
    expect(fresh.body.at).toBe(Math.floor((await local.now()) / HOUR) * HOUR);
    expect(apiUsage().s3Get).toBe(2);
    expect(await snapshot(true)).toEqual(fresh);
    const plain = await snapshot(false);
    expect(plain.body).toEqual(fresh.body);
    expect(apiUsage().s3Get).toBe(0);
    clearReadCaches();
    expect(await snapshot(false)).toEqual(plain);
    expect(await snapshot(true)).toEqual(fresh);
  });

  it("keeps the pointer only for its 60 s max-age and within its hour: the next hour's file shows once written", async () => {
    const first = await snapshot(true);
    meter.take();
    await local.advance(30_000);
    expect((await snapshot(true)).body).toEqual(first.body);
    expect(apiUsage().s3Get).toBe(0);
    await local.advance(31_000);
    expect((await snapshot(true)).body).toEqual(first.body);
    // The pointer is read again (its 60 s are over); the hourly file it still names is kept.
    expect(apiUsage().s3Get).toBe(1);
    const next = (Math.floor((await local.now()) / HOUR) + 1) * HOUR;
    await local.setClock(next + MINUTE);
    await local.settle();
    const later = await snapshot(true);
    expect(later.body.at).toBe(next);
    clearReadCaches();
    expect(await snapshot(true)).toEqual(later);
  });
});
