/**
 * The live fan-out and the roles watch on the memory change feed (issue 25 point 2), with no engine: the memory
 * fakes publish what the table's stream would carry, the fan-out hears events and posts to the memory
 * `@connections`. Expectations follow the spec's live socket (hello first, `ah`, `sealed`, `alert`, `roles`,
 * 4403 without `live`, 4401 when the device is deleted).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import type { MarketAlert } from '../../shared/domain/alerts';
import { fanout } from '../../shared/live/fanout';
import type { NewConnection } from '../../shared/ports/connections';
import type { DeviceRecord, StoredClaims } from '../../shared/ports/identity';
import { MemoryChangeFeed } from '../../shared/store/memory/change-feed';
import { MemoryConnections, MemorySockets } from '../../shared/store/memory/connections';
import { MemoryIdentity } from '../../shared/store/memory/identity';
import { memoryMarket } from '../../shared/store/memory/market';
import { MemorySettings } from '../../shared/store/memory/settings';
import { importsOf, sourceFiles } from '../support/imports';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const M = 'forever.normal.alliance.us';
const CDN = 'https://cdn.example/';

function world() {
  const clock = new ManualClock(T0);
  const errors: unknown[] = [];
  const feed = new MemoryChangeFeed(100, (err) => errors.push(err));
  const logged: string[] = [];
  const svc = {
    config: { cdnBase: CDN } as never,
    clock,
    connections: new MemoryConnections(2000, feed),
    sockets: new MemorySockets(),
    market: memoryMarket(clock, undefined, feed),
    log: ((level: string, message: string) => logged.push(`${level} ${message}`)) as never,
  };
  const identity = new MemoryIdentity(feed);
  const settings = new MemorySettings(feed);
  feed.subscribe((events) => fanout(svc, events));
  /** A client connects and is stored, as `$connect` does. */
  const open = async (id: string, over: Partial<NewConnection> = {}) => {
    svc.sockets.connect(id);
    return svc.connections.add({
      connectionId: id,
      market: M,
      userId: 'user_1',
      kind: 'session',
      claims: { plan: 'premium', contributorUntil: null, grants: [], withhold: [] },
      scopes: null,
      roles: ['premium'],
      features: ['live', 'prices.live', 'candles.minute'],
      historyDays: 90,
      validUntil: T0 + 3_600_000,
      connectedAt: T0,
      ...over,
    });
  };
  const types = (id: string) => svc.sockets.messagesOf(id).map((m) => (m as { t: string }).t);
  return { svc, feed, identity, settings, open, types, errors, logged };
}

describe('the fan-out on the memory change feed', () => {
  it('greets a new socket with hello once it is stored, then tells it of merges with ah', async () => {
    const w = world();
    await w.open('c1');
    await w.feed.drain();
    expect(w.types('c1')).toEqual(['hello']);
    expect((await w.svc.connections.get('c1'))?.ready).toBe(true);
    await w.svc.market.merges.put({ market: M, seq: 1, at: T0, mergedAt: T0, changePath: `live/v1/${M}/1-A.json.gz` });
    await w.feed.drain();
    expect(w.svc.sockets.messagesOf('c1')[1]).toEqual({ t: 'ah', market: M, seq: 1, at: T0, url: `${CDN}live/v1/${M}/1-A.json.gz` });
    // A redelivered merge is no new merge.
    await w.svc.market.merges.put({ market: M, seq: 1, at: T0, mergedAt: T0, changePath: `live/v1/${M}/1-A.json.gz` });
    await w.feed.drain();
    expect(w.types('c1')).toEqual(['hello', 'ah']);
    expect(w.errors).toEqual([]);
  });

  it('tells a sealed period and a fired alert to the sockets that hear them', async () => {
    const w = world();
    await w.open('c1');
    await w.open('c2', { userId: 'user_2' });
    await w.feed.drain();
    await w.svc.market.filesState.advanceSealed(M, 'm1', null, 100, { m1Path: 'm1/100.json.gz' });
    const alert: MarketAlert = { id: 'a1', market: M, item: 2589, kind: 'below', value: 100, enabled: true, created: T0, armed: true, last: null };
    await w.settings.createAlert('user_1', alert, 5);
    const [stored] = await w.settings.enabledMarketAlerts(M);
    const last: MarketAlert['last'] = { at: T0, hits: [[2589, 90, 1]] };
    const fired: MarketAlert = { ...alert, armed: false, last };
    await w.settings.saveEvaluation(stored, fired, [], { userId: 'user_1', market: M, at: T0, alert: fired, seq: 1 });
    await w.feed.drain();
    expect(w.types('c1')).toEqual(['hello', 'sealed', 'alert']);
    expect(w.types('c2')).toEqual(['hello', 'sealed']);
    expect(w.svc.sockets.messagesOf('c1')[2]).toEqual({ t: 'alert', alert: fired });
  });

  it('runs the roles watch on profile changes: roles when features change, 4403 without live; a refresh that changes nothing says nothing', async () => {
    const w = world();
    const claims = (over: Partial<StoredClaims>): StoredClaims => ({
      email: null,
      plan: 'premium',
      contributorUntil: null,
      grants: [],
      withhold: [],
      partner: false,
      fetchedAt: T0,
      ...over,
    });
    await w.open('k1', { kind: 'apiKey' });
    await w.feed.drain();
    // The account's first claims: the key's socket takes premium's features (more than it was stored with).
    await w.identity.putClaims('user_1', claims({}));
    await w.feed.drain();
    expect(w.types('k1')).toEqual(['hello', 'roles']);
    await w.identity.putClaims('user_1', claims({ fetchedAt: T0 + 1 }));
    await w.identity.takeClaimSlot('user_1', T0, T0);
    await w.feed.drain();
    expect(w.types('k1')).toEqual(['hello', 'roles']);
    await w.identity.putClaims('user_1', claims({ plan: null }));
    await w.feed.drain();
    expect(w.types('k1')).toEqual(['hello', 'roles', 'roles']);
    expect(w.svc.sockets.messagesOf('k1')[2]).toMatchObject({ t: 'roles', roles: ['free'] });
    await w.identity.putClaims('user_1', claims({ plan: null, withhold: ['live'] }));
    await w.feed.drain();
    expect(w.svc.sockets.closed.get('k1')).toBe(4403);
  });

  it('closes a deleted device’s sockets with 4401, and only them', async () => {
    const w = world();
    const device: DeviceRecord = { id: 'dev_1', userId: 'user_1', name: 'desktop', created: T0, lastSeen: null, collected: true, tokenHash: 'tok' };
    await w.open('d1', { kind: 'device', deviceId: 'dev_1', validUntil: null });
    await w.open('d2', { kind: 'device', deviceId: 'dev_2', validUntil: null });
    await w.feed.drain();
    await w.identity.putPairing({ pairId: 'p1', name: 'desktop', created: T0, expires: T0 + 600_000, state: 'waiting' }, 'code', T0);
    await w.identity.bindPairing('p1', { ...device, collected: false, tokenHash: null }, T0, T0 + 3_600_000);
    expect(await w.identity.deleteDevice(device)).toBe(true);
    await w.feed.drain();
    expect(w.svc.sockets.closed.get('d1')).toBe(4401);
    expect(w.svc.sockets.closed.has('d2')).toBe(false);
  });
});

describe('the change feed is a port', () => {
  it('keeps the fan-out and the roles watch off the table: no store module, no stream record type, no key prefix', () => {
    const readers = sourceFiles('shared/live').filter((f) => /\/(fanout|roles-watch)\.ts$/.test(f));
    expect(readers.sort()).toEqual(['shared/live/fanout.ts', 'shared/live/roles-watch.ts']);
    const offending = readers.flatMap((file) =>
      importsOf(file)
        .filter((i) => i.target.startsWith('shared/store/') || i.specifier === 'aws-lambda' || i.specifier.startsWith('@aws-sdk/'))
        .map((i) => `${file} imports ${i.specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('decodes the stream in one module: only it and the poller read the filters, only it reads stream images', () => {
    const all = [...sourceFiles('shared'), ...sourceFiles('lib'), ...sourceFiles('lambdas')];
    const filterReaders = all.filter((f) => importsOf(f).some((i) => i.target === 'shared/store/change-stream'));
    expect(filterReaders.filter((f) => !['lib/stack.ts', 'lib/local/background/background.ts', 'lambdas/fanout/handler.ts'].includes(f))).toEqual([]);
    const imageReaders = all.filter((f) => importsOf(f).some((i) => i.specifier === '@aws-sdk/util-dynamodb'));
    expect(imageReaders.filter((f) => f.startsWith('shared/live/'))).toEqual([]);
  });
});
