/**
 * The change feed's contract (issue 25 point 2): the same writes, through the ports, make the same
 * `ChangeEvent`s on both backends. Real: the DynamoDB adapters on DynamoDB Local, the table's stream read by
 * the local stream poller through the stream's filters and decoded by its adapter, as the fan-out gets it.
 * Memory: the in-memory fakes publishing to the memory change feed.
 *
 * The expected events are written from the words (socket opened, merged, files moved, alert fired,
 * profile changed, device removed) and from what the fan-out and the roles watch act on; writes that change
 * nothing they act on (a socket's later updates, a redelivered merge, a snapshot hour, an evaluation without
 * a firing, a claims refresh that changes no claim, a claim slot, a new device, counters) make none.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { StreamPoller } from '../../lib/local/background/stream-poller';
import { DAY_MS, ManualClock, MINUTE_MS } from '../../shared/clock';
import type { MarketAlert } from '../../shared/domain/alerts';
import type { ChangeEvent } from '../../shared/ports/changes';
import type { ConnectionsPort, NewConnection } from '../../shared/ports/connections';
import type { DeviceRecord, IdentityPort, StoredClaims } from '../../shared/ports/identity';
import type { MarketPort, MergeRecord } from '../../shared/ports/market';
import type { SettingsPort } from '../../shared/ports/settings';
import { CHANGE_STREAM_FILTERS, decodeChangeRecords } from '../../shared/store/change-stream';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoSettings } from '../../shared/store/dynamo-settings';
import { MemoryChangeFeed } from '../../shared/store/memory/change-feed';
import { MemoryConnections } from '../../shared/store/memory/connections';
import { MemoryIdentity } from '../../shared/store/memory/identity';
import { memoryMarket } from '../../shared/store/memory/market';
import { MemorySettings } from '../../shared/store/memory/settings';
import { engineConfig, freshTable } from '../support/engines';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const M = 'forever.normal.alliance.us';

/** The ports that write what the feed tells, and the events told since the last call. */
interface Backend {
  connections: ConnectionsPort;
  market: MarketPort;
  identity: IdentityPort;
  settings: SettingsPort;
  events(): Promise<ChangeEvent[]>;
}

async function dynamoBackend(): Promise<Backend> {
  const table = await freshTable(new ManualClock(T0));
  const config = engineConfig('dynamodb');
  const raw = new DynamoDBClient({ region: 'us-east-1', endpoint: config.endpoints.dynamodb, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const heard: ChangeEvent[] = [];
  const poller = new StreamPoller(
    config.endpoints.dynamodb as string,
    raw,
    table.name,
    async (event) => {
      heard.push(
        ...decodeChangeRecords(event.Records, (err) => {
          throw err;
        }),
      );
    },
    100,
    CHANGE_STREAM_FILTERS,
    (err) => {
      throw err;
    },
  );
  await poller.init(true);
  return {
    connections: new DynamoConnections(table, 2),
    market: dynamoMarket(table),
    identity: dynamoIdentity(table),
    settings: dynamoSettings(table),
    async events() {
      await poller.drain();
      return heard.splice(0);
    },
  };
}

async function memoryBackend(): Promise<Backend> {
  const feed = new MemoryChangeFeed(100, (err) => {
    throw err;
  });
  const heard: ChangeEvent[] = [];
  feed.subscribe(async (events) => {
    heard.push(...events);
  });
  return {
    connections: new MemoryConnections(2, feed),
    market: memoryMarket(new ManualClock(T0), undefined, feed),
    identity: new MemoryIdentity(feed),
    settings: new MemorySettings(feed),
    async events() {
      await feed.drain();
      return heard.splice(0);
    },
  };
}

const variants: Array<[string, () => Promise<Backend>]> = [
  ['dynamodb stream', dynamoBackend],
  ['memory feed', memoryBackend],
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

const merge = (seq: number): MergeRecord => ({ market: M, seq, at: T0 + seq, mergedAt: T0 + seq, changePath: `live/v1/${M}/${seq}-AAAA.json.gz` });

const alert = (id: string): MarketAlert => ({ id, market: M, item: 2589, kind: 'below', value: 100, enabled: true, created: T0, armed: true, last: null });

const claims = (over: Partial<StoredClaims> = {}): StoredClaims => ({
  email: 'a@example.com',
  plan: 'premium',
  contributorUntil: null,
  grants: ['books'],
  withhold: [],
  partner: false,
  fetchedAt: T0,
  ...over,
});

describe.each(variants)('change feed (%s)', (_name, make) => {
  it('tells of a socket opened once, with the socket as stored; its updates and removal tell nothing', async () => {
    const b = await make();
    const stored = await b.connections.add(socket('c1'));
    await b.connections.add(socket('c2', { kind: 'device', deviceId: 'dev_1', validUntil: null }));
    const c2 = { ...socket('c2', { kind: 'device', deviceId: 'dev_1', validUntil: null }), hub: 0, ready: false };
    expect(await b.events()).toEqual([
      { type: 'socket-opened', socket: { ...socket('c1'), hub: 0, ready: false } },
      { type: 'socket-opened', socket: c2 },
    ]);
    expect(stored).toEqual({ ...socket('c1'), hub: 0, ready: false });
    await b.connections.update(stored, { ready: true });
    await b.connections.countMessage('c1', 5);
    await b.connections.removeById('c1');
    expect(await b.events()).toEqual([]);
  });

  it('tells of a merge once: a redelivered merge writes the same record and tells nothing', async () => {
    const b = await make();
    await b.market.merges.put(merge(1));
    await b.market.merges.put({ ...merge(2), checkpointPath: `live/v1/${M}/cp-2.json.gz`, bookPath: `books/v1/${M}/2-B.json.gz`, bookAt: T0 });
    await b.market.merges.put(merge(1));
    expect(await b.events()).toEqual([
      { type: 'merged', record: merge(1) },
      { type: 'merged', record: { ...merge(2), checkpointPath: `live/v1/${M}/cp-2.json.gz`, bookPath: `books/v1/${M}/2-B.json.gz`, bookAt: T0 } },
    ]);
  });

  it('tells of files moved with the state after the move and the resolutions that moved; a snapshot hour or a lost race tells nothing', async () => {
    const b = await make();
    expect(await b.market.filesState.advanceSealed(M, 'm1', null, 100, { m1Path: 'm1/100' })).toBe(true);
    await b.market.filesState.recordSnapshotHour(M, 7);
    expect(await b.market.filesState.advanceSealed(M, 'h1', null, 20, { h1Path: 'h1/20' })).toBe(true);
    expect(await b.market.filesState.advanceSealed(M, 'm1', 99, 101, { m1Path: 'm1/101' })).toBe(false);
    expect(await b.events()).toEqual([
      { type: 'files-moved', moved: ['m1'], state: { market: M, sealed: { m1: 100, h1: null, d1: null }, m1Path: 'm1/100', snapHour: null } },
      { type: 'files-moved', moved: ['h1'], state: { market: M, sealed: { m1: 100, h1: 20, d1: null }, m1Path: 'm1/100', h1Path: 'h1/20', snapHour: 7 } },
    ]);
  });

  it('tells of an alert fired with its owner, market, time and alert; an evaluation without a firing tells nothing', async () => {
    const b = await make();
    expect(await b.settings.createAlert('user_1', alert('a1'), 5)).toBe(true);
    const [stored] = await b.settings.enabledMarketAlerts(M);
    const last: MarketAlert['last'] = { at: T0 + 5, hits: [[2589, 90, 1]] };
    const next: MarketAlert = { ...stored.alert, armed: false, last };
    expect(await b.settings.saveEvaluation(stored, next, [], { userId: 'user_1', market: M, at: T0 + 5, alert: next, seq: 3 })).toBe(true);
    const [again] = await b.settings.enabledMarketAlerts(M);
    expect(await b.settings.saveEvaluation(again, { ...next, armed: true }, [], null)).toBe(true);
    expect(await b.events()).toEqual([{ type: 'alert-fired', firing: { userId: 'user_1', market: M, at: T0 + 5, alert: next, seq: 3 } }]);
  });

  it('tells of a profile change when the claims or the contributor window change, and only then', async () => {
    const b = await make();
    const until = T0 + 14 * DAY_MS;
    await b.identity.putClaims('user_1', claims());
    // A refresh that changes no claim (only when it was read) and a claim slot change nothing that makes roles.
    await b.identity.putClaims('user_1', claims({ fetchedAt: T0 + MINUTE_MS, email: 'b@example.com' }));
    await b.identity.takeClaimSlot('user_1', T0, T0 - 1);
    await b.identity.raiseWindow('user_1', until);
    await b.identity.raiseWindow('user_1', until - DAY_MS);
    await b.identity.putClaims('user_1', claims({ plan: null, grants: [], withhold: ['live'] }));
    expect(await b.events()).toEqual([
      { type: 'profile-changed', userId: 'user_1', claims: { plan: 'premium', contributorUntil: null, grants: ['books'], withhold: [] }, windowUntil: null },
      { type: 'profile-changed', userId: 'user_1', claims: { plan: 'premium', contributorUntil: until, grants: ['books'], withhold: [] }, windowUntil: until },
      { type: 'profile-changed', userId: 'user_1', claims: { plan: null, contributorUntil: until, grants: [], withhold: ['live'] }, windowUntil: until },
    ]);
  });

  it('tells of a window raised on an account whose claims were never read (claims null)', async () => {
    const b = await make();
    await b.identity.raiseWindow('user_2', T0 + DAY_MS);
    expect(await b.events()).toEqual([{ type: 'profile-changed', userId: 'user_2', claims: null, windowUntil: T0 + DAY_MS }]);
  });

  it('tells of a device removed; pairing and collecting it tell nothing, nor a second delete', async () => {
    const b = await make();
    const device: DeviceRecord = { id: 'dev_1', userId: 'user_1', name: 'desktop', created: T0, lastSeen: null, collected: false, tokenHash: null };
    expect(await b.identity.putPairing({ pairId: 'p1', name: 'desktop', created: T0, expires: T0 + 10 * MINUTE_MS, state: 'waiting' }, 'code1', T0)).toBe(true);
    expect(await b.identity.bindPairing('p1', device, T0, T0 + 3_600_000)).toBe(true);
    const bound = await b.identity.getPairing('p1', T0);
    expect(await b.identity.collectPairing(bound!, 'tok1', T0)).toBe(true);
    const collected = (await b.identity.getDevice('user_1', 'dev_1', T0)) as DeviceRecord;
    expect(await b.identity.deleteDevice(collected)).toBe(true);
    expect(await b.identity.deleteDevice(collected)).toBe(false);
    expect(await b.events()).toEqual([{ type: 'device-removed', userId: 'user_1', deviceId: 'dev_1' }]);
  });

  it('tells nothing of writes no consumer acts on', async () => {
    const b = await make();
    await b.settings.putWatchlist('user_1', [1, 2], T0);
    await b.identity.countRequest('user_1', T0);
    await b.identity.putKeyVerdict('k1', { ok: true, userId: 'user_1', scopes: null, until: T0 + MINUTE_MS });
    expect(await b.events()).toEqual([]);
  });
});
