import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuctionRow } from '../../shared/files/documents';
import { pairDevice } from '../support/devices';
import { LiveClient } from '../support/live-client';
import { type Local, startLocal } from '../support/local';
import { bookOf, DAY, HOUR, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

type Listing = [number, number, number];
const listings = (n: number, price: number, first = 1000): Listing[] => Array.from({ length: n }, (_, i) => [first + i, price + i, 1 + (i % 7)]);

/** The table the API answers (rows and seq), for comparing with a client's. */
async function apiTable(local: Local, token: string): Promise<{ seq: number; rows: AuctionRow[] }> {
  const res = await local.api('GET', `/api/v1/ah/${MARKET}`, { token });
  expect(res.status).toBe(200);
  return { seq: res.body.seq, rows: [...res.body.rows].sort((a: AuctionRow, b: AuctionRow) => a[0] - b[0]) };
}

const sortedTable = (c: LiveClient): AuctionRow[] => [...c.table.values()].sort((a, b) => a[0] - b[0]);

describe('gap rule over the live socket: none, changes, checkpoint, files and reconnecting after 120 merges', () => {
  let local: Local;
  let contributor: string;
  const clients: LiveClient[] = [];
  const client = (token: string, more: Partial<ConstructorParameters<typeof LiveClient>[0]> = {}) => {
    const c = new LiveClient({ base: local.base, market: MARKET, token, ...more });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    local = await startLocal();
    const u = await local.user({ contributorUntil: (await local.now()) + 30 * DAY });
    contributor = await local.session(u.id, { expiresIn: 30 * 86_400 });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await local.close();
  });

  it('catches up by checkpoint, then by changes one notice at a time, then has nothing to do', async () => {
    const key = await uploaderKey(local);
    await uploadAt(local, key, await local.now(), listings(20, 10_000));
    const c = client(contributor);
    const hello = await c.connect(60_000);
    expect(hello.checkpoint?.seq).toBe(1);
    await c.waitForSeq(1);
    expect(c.fetched).toMatchObject({ checkpoint: [hello.checkpoint?.url], change: [], files: 0, table: 0 });
    // Each book its own `at`: a second book with a market's `at` is a duplicate and merges nothing.
    await uploadAt(local, await uploaderKey(local), (await local.now()) + 1000, listings(5, 11_000));
    await uploadAt(local, await uploaderKey(local), (await local.now()) + 1000, listings(5, 12_000, 1010));
    await c.waitForSeq(3);
    expect(c.fetched.change).toHaveLength(2);
    expect(sortedTable(c)).toEqual((await apiTable(local, contributor)).rows);
    const again = client(contributor, { table: new Map(c.table), have: 3 });
    await again.connect(60_000);
    await again.idle();
    expect(again.fetched).toEqual({ change: [], checkpoint: [], files: 0, table: 0 });
  });

  // 120 merges and a minute for each hello: beside the suite's other worker the merges and the first answers run several times slower than alone.
  it('reconnects after missing 120 merges through the newest checkpoint and the changes after it', async () => {
    const c = client(contributor);
    await c.connect(60_000);
    await c.waitForSeq(3);
    const kept = new Map(c.table);
    const have = c.have;
    c.close();
    await c.waitForClose();
    // 8 uploaders, one book each every 5 minutes (their limit), each book its own `at`; schedules wait for the settle.
    const keys = await Promise.all(Array.from({ length: 8 }, () => uploaderKey(local)));
    for (let round = 0; round < 15; round++) {
      const now = await local.advance(5 * MINUTE);
      const answers = await Promise.all(
        keys.map((key, j) =>
          local.api('POST', '/api/v1/ah/books', {
            token: key,
            body: bookOf(now - j * 1000, listings(3, 20_000 + round * 80 + j * 10, 1000 + ((round * 8 + j) % 17) * 3)),
          }),
        ),
      );
      for (const a of answers) expect(a.status).toBe(200);
    }
    await local.settle();
    const back = client(contributor, { table: kept, have });
    const hello = await back.connect(60_000);
    expect(hello.seq).toBe(123);
    expect(hello.checkpoint?.seq).toBe(100);
    expect(hello.changes.map(([s]) => s)).toEqual(Array.from({ length: 23 }, (_, i) => 101 + i));
    await back.waitForSeq(123, 60_000);
    expect(back.fetched.checkpoint).toHaveLength(1);
    expect(back.fetched.change).toHaveLength(23);
    expect(new Set(back.fetched.change).size).toBe(23);
    expect(back.fetched).toMatchObject({ files: 0, table: 0 });
    expect(back.errors).toEqual([]);
    expect(sortedTable(back)).toEqual((await apiTable(local, contributor)).rows);
  }, 600_000);

  it('asks the files route once it gains prices.live with nothing to start from (a device whose owner became a contributor)', async () => {
    const u = await local.user({ plan: 'free' });
    const device = await pairDevice(local, u.id);
    const c = client(device.token, { follow: undefined });
    const hello = await c.connect(60_000);
    expect(hello.features).not.toContain('prices.live');
    expect(hello.checkpoint).toBeNull();
    await local.advance(5 * MINUTE);
    // A credited upload opens the device owner's contributor window: its sockets hear it at once.
    const res = await local.api('POST', '/api/v1/ah/books', { token: device.token, body: bookOf(await local.now(), listings(120, 30_000)) });
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ credited: true });
    await local.settle();
    await c.waitForMessage((m) => m.t === 'roles');
    expect(c.features).toContain('prices.live');
    const { seq } = await apiTable(local, device.token);
    await c.waitForSeq(seq);
    expect(c.fetched.files).toBe(1);
    expect(c.fetched.checkpoint).toHaveLength(1);
    expect(c.fetched.table).toBe(0);
    expect(sortedTable(c)).toEqual((await apiTable(local, device.token)).rows);
  });
});

describe('gap rule: loading the table once no change file is retained', () => {
  let local: Local;

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('falls back to the table route after the files route had nothing to offer', async () => {
    const key = await uploaderKey(local);
    await uploadAt(local, key, await local.now(), listings(8, 5_000));
    const u = await local.user({ contributorUntil: (await local.now()) + 30 * DAY });
    // Merge records and live files are kept 72 hours.
    await local.advance(72 * HOUR + 10 * MINUTE);
    await local.settle();
    const token = await local.session(u.id, { expiresIn: 86_400 });
    const c = new LiveClient({ base: local.base, market: MARKET, token });
    const hello = await c.connect(60_000);
    expect(hello).toMatchObject({ seq: 1, checkpoint: null, changes: [] });
    await c.waitForSeq(1);
    expect(c.fetched).toEqual({ change: [], checkpoint: [], files: 1, table: 1 });
    expect(sortedTable(c)).toEqual((await apiTable(local, token)).rows);
    c.close();
  });
});
