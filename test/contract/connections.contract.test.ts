/**
 * The live sockets' records: one contract, run against the DynamoDB adapter (on DynamoDB Local) and the
 * in-memory fake. Hubs hold two sockets here so filling one is cheap.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import type { ConnectionsPort, NewConnection } from '../../shared/ports/connections';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { MemoryConnections } from '../../shared/store/memory/connections';
import { freshTable } from '../support/engines';

const M = 'forever.normal.alliance.us';
const N = 'forever.pvp.horde.us';
const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);

const variants: Array<[string, () => Promise<ConnectionsPort>]> = [
  ['dynamodb', async () => new DynamoConnections(await freshTable(new ManualClock(T0)), 2)],
  ['memory', async () => new MemoryConnections(2)],
];

const socket = (id: string, over: Partial<NewConnection> = {}): NewConnection => ({
  connectionId: id,
  market: M,
  userId: 'user_1',
  kind: 'session',
  claims: { plan: null, contributorUntil: null, grants: [], withhold: [] },
  scopes: null,
  roles: ['free'],
  features: ['live', 'watchlist'],
  historyDays: 7,
  validUntil: T0 + 60_000,
  connectedAt: T0,
  addressKey: '192.0.2.1',
  ...over,
});

const ids = (cs: Array<{ connectionId: string }>) => cs.map((c) => c.connectionId).sort();

describe.each(variants)('connections port (%s)', (_name, make) => {
  it('stores a socket not ready yet, found by id and by where it is', async () => {
    const port = await make();
    const stored = await port.add(socket('c1', { deviceId: undefined }));
    expect(stored).toMatchObject({ connectionId: 'c1', market: M, hub: 0, ready: false });
    expect(await port.get('c1')).toEqual(stored);
    expect(await port.at({ connectionId: 'c1', market: M, hub: 0 })).toEqual(stored);
    expect(await port.get('nobody')).toBeNull();
    expect(await port.at({ connectionId: 'c1', market: M, hub: 1 })).toBeNull();
  });

  it('fills a hub up to its size, opens the next, and gives a place back when a socket goes', async () => {
    const port = await make();
    const hubs = [];
    for (const id of ['a', 'b', 'c']) hubs.push((await port.add(socket(id))).hub);
    expect(hubs).toEqual([0, 0, 1]);
    expect(await port.remove({ connectionId: 'a', market: M, hub: 0, userId: 'user_1' })).toBe(true);
    expect((await port.add(socket('d'))).hub).toBe(0);
    expect((await port.add(socket('e', { market: N }))).hub).toBe(0);
  });

  it('counts a socket’s messages per minute, restarting each minute and refusing a stale one', async () => {
    const port = await make();
    await port.add(socket('c1'));
    const at = { connectionId: 'c1', market: M, hub: 0, userId: 'user_1' };
    expect(await port.countMessage('c1', 100)).toEqual({ at, count: 1 });
    expect(await port.countMessage('c1', 100)).toEqual({ at, count: 2 });
    expect(await port.countMessage('c1', 101)).toEqual({ at, count: 1 });
    expect(await port.countMessage('c1', 100)).toBeNull();
    expect(await port.countMessage('gone', 101)).toBeNull();
  });

  it('updates a stored socket’s fields and audience; a gone socket is not updated', async () => {
    const port = await make();
    const c = await port.add(socket('c1'));
    expect(await port.update(c, { ready: true, features: ['live', 'prices.live'], historyDays: 90, validUntil: null })).toBe(true);
    expect(await port.get('c1')).toMatchObject({ ready: true, features: ['live', 'prices.live'], historyDays: 90, validUntil: null });
    expect(await port.audiencesOf(M)).toEqual([
      {
        connectionId: 'c1',
        market: M,
        hub: 0,
        userId: 'user_1',
        ready: true,
        features: ['live', 'prices.live'],
        historyDays: 90,
        audience: 'live,prices.live|90',
      },
    ]);
    expect(await port.update(c, {})).toBe(true);
    await port.removeById('c1');
    expect(await port.update(c, { ready: false })).toBe(false);
  });

  it('lists a market’s sockets and an account’s, across hubs and markets', async () => {
    const port = await make();
    await port.add(socket('a'));
    await port.add(socket('b', { userId: 'user_2' }));
    await port.add(socket('c'));
    await port.add(socket('d', { market: N }));
    expect(ids(await port.ofMarket(M))).toEqual(['a', 'b', 'c']);
    expect(ids(await port.audiencesOf(M))).toEqual(['a', 'b', 'c']);
    expect(ids(await port.ofUser('user_1'))).toEqual(['a', 'c', 'd']);
    expect(ids(await port.ofUser('user_1', N))).toEqual(['d']);
    expect(await port.ofMarket('forever.rp.horde.us')).toEqual([]);
  });

  it('lists each socket of a market once, whatever its connection id, across hubs (the fan-out’s read)', async () => {
    const port = await make();
    // Ids on and around every bound of the adapter's id ranges, base64's first and last characters, and a few no gateway makes.
    const all = ['+A', '/b', '0', '9z', 'D~', 'E', 'EA', 'T~', 'U', 'Ua', 'j~', 'k', 'kz', 'z', 'zz==', '~', '!', 'é'];
    for (const id of all) await port.add(socket(id, { userId: `user_${id.length}` }));
    await port.add(socket('other', { market: N }));
    const listed = (await port.audiencesOf(M)).map((c) => c.connectionId);
    expect(listed.length).toBe(all.length);
    expect([...listed].sort()).toEqual([...all].sort());
  });

  it('counts an account’s stored sockets across markets and hubs; every way of forgetting one lowers the count', async () => {
    const port = await make();
    expect(await port.countOfUser('user_1')).toBe(0);
    await port.add(socket('a'));
    await port.add(socket('b'));
    await port.add(socket('c'));
    await port.add(socket('d', { market: N }));
    await port.add(socket('e', { userId: 'user_2' }));
    expect(await port.countOfUser('user_1')).toBe(4);
    expect(await port.countOfUser('user_2')).toBe(1);
    expect(await port.removeById('a')).toBe(true);
    expect(await port.remove({ connectionId: 'c', market: M, hub: 1, userId: 'user_1' })).toBe(true);
    expect(await port.countOfUser('user_1')).toBe(2);
    // A second removal of the same socket does not count it twice.
    expect(await port.removeById('a')).toBe(false);
    expect(await port.countOfUser('user_1')).toBe(2);
    expect(await port.countOfUser('nobody')).toBe(0);
  });

  it('forgets a socket once: by reference or by id, pointer and account entry included', async () => {
    const port = await make();
    await port.add(socket('a'));
    await port.add(socket('b'));
    expect(await port.removeById('a')).toBe(true);
    expect(await port.removeById('a')).toBe(false);
    expect(await port.remove({ connectionId: 'b', market: M, hub: 0, userId: 'user_1' })).toBe(true);
    expect(await port.remove({ connectionId: 'b', market: M, hub: 0, userId: 'user_1' })).toBe(false);
    expect(await port.get('b')).toBeNull();
    expect(await port.ofUser('user_1')).toEqual([]);
    expect(await port.countMessage('b', 1)).toBeNull();
  });
});
