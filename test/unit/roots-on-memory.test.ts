/**
 * Issue 25 point 1: the real handlers run on the in-memory fakes, with no engine. Each root is given exactly its
 * manifest's ports (`servicesFor(fn, memoryServices(clock))`, test/support/memory-service.ts); the flows are the
 * spec's (Device pairing, Uploads, Market reads, Alert evaluation), across the functions that serve them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemKey } from '../../shared/domain/item-key';
import { mergeQueueName, PUSH_QUEUE } from '../../shared/topology';
import { bookOf, MARKET } from '../support/market-books';
import { type MemoryService, memoryService } from '../support/memory-service';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const ITEM = itemKey(2589, 0);

let m: MemoryService;
beforeAll(async () => {
  m = await memoryService(T0);
});
afterAll(() => m.close());

describe('the handlers on the memory services', () => {
  it('pairs a device: the app asks for a code, a session confirms it, the poll collects a token that signs the app in', async () => {
    const user = await m.user({ plan: 'free' });
    const pair = await m.call('POST /api/v1/devices/pair', {}, { body: { name: 'Desktop' }, ip: '198.51.100.1' });
    expect(pair.status).toBe(200);
    expect(pair.body.code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    const waiting = await m.call('GET /api/v1/devices/pair/{pairId}', { pairId: pair.body.pairId }, { ip: '198.51.100.1' });
    expect(waiting).toMatchObject({ status: 200, body: { status: 'waiting' } });

    const session = await m.session(user.id);
    const confirm = await m.call('POST /api/v1/devices/confirm', {}, { token: session, body: { code: pair.body.code }, headers: { origin: m.base } });
    expect(confirm).toMatchObject({ status: 200, body: { device: { name: 'Desktop' } } });

    const paired = await m.call('GET /api/v1/devices/pair/{pairId}', { pairId: pair.body.pairId }, { ip: '198.51.100.1' });
    expect(paired).toMatchObject({ status: 200, body: { status: 'paired' } });
    const token = paired.body.token as string;
    // The token once: the pairing is then gone.
    expect((await m.call('GET /api/v1/devices/pair/{pairId}', { pairId: pair.body.pairId }, { ip: '198.51.100.1' })).status).toBe(404);

    const me = await m.call('GET /api/v1/me', {}, { token });
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain(user.id);
    const devices = await m.call('GET /api/v1/devices', {}, { token: session, headers: { origin: m.base } });
    expect(devices.body.devices.map((d: { id: string }) => d.id)).toEqual([confirm.body.device.id]);
    // Stored in the memory identity port, the one the api and upload roots share.
    expect(m.svc.identity).toBe((await import('../../shared/platform/granted')).servicesFor('api', m.svc).identity);
  });

  it('uploads a book, merges it from its queue and reads the item at the uploaded price', async () => {
    const user = await m.user({ plan: 'free' });
    const key = await m.apiKey(user.id);
    const at = m.clock.now();
    const up = await m.call('POST /api/v1/ah/books', {}, { token: key, body: bookOf(at, [[ITEM, 12_345, 7]]) });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ credited: false });
    // The upload queued the merge on the market's FIFO queue; nothing is merged before it runs.
    expect(m.svc.queues.messages(mergeQueueName(MARKET))).toHaveLength(1);
    expect(await m.svc.market.latest.meta(MARKET)).toMatchObject({ seq: 0, newestScanAt: null });

    expect(await m.drainQueues()).toBeGreaterThanOrEqual(1);
    expect(m.svc.queues.messages(mergeQueueName(MARKET))).toHaveLength(0);
    expect(await m.svc.market.latest.meta(MARKET)).toMatchObject({ seq: 1, newestScanAt: at });

    // A live caller reads the merged row (anonymous callers read the hourly view, not yet cut).
    const premium = await m.session((await m.user({ plan: 'premium' })).id);
    const read = await m.call('GET /api/v1/ah/{market}/{item}', { market: MARKET, item: String(ITEM) }, { token: premium, headers: { origin: m.base } });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ market: MARKET, item: ITEM, live: true });
    expect(JSON.stringify(read.body.row)).toContain(`12345,7,${at}`);
    // A second book of the same caller and market within 5 minutes: 409 too_soon.
    const again = await m.call('POST /api/v1/ah/books', {}, { token: key, body: bookOf(at + 1000, [[ITEM, 99, 1]]) });
    expect(again).toMatchObject({ status: 409, body: { error: 'too_soon' } });
  });

  it("fires an armed alert when a merge of its market makes its condition hold, and queues the account's push", async () => {
    m.clock.advance(6 * 60_000);
    const watcher = await m.session((await m.user({ plan: 'free' })).id);
    const item = itemKey(4444, 0);
    const created = await m.call(
      'POST /api/v1/market/alerts',
      {},
      { token: watcher, headers: { origin: m.base }, body: { market: MARKET, item, kind: 'below', value: 1000 } },
    );
    expect(created.status).toBe(200);
    expect(created.body.alert).toMatchObject({ market: MARKET, item, kind: 'below', value: 1000, last: null });

    const uploader = await m.apiKey((await m.user({ plan: 'free' })).id);
    const heard: string[] = [];
    const stop = m.svc.changes.subscribe(async (events) => {
      for (const e of events) heard.push(e.type);
    });
    const at = m.clock.now();
    expect((await m.call('POST /api/v1/ah/books', {}, { token: uploader, body: bookOf(at, [[item, 900, 3]]) })).status).toBe(200);
    await m.drainQueues((q) => q !== PUSH_QUEUE.name);
    // The fakes told the change feed of the merge and the firing, as the table's stream would.
    await m.svc.changes.drain();
    stop();
    expect(heard).toEqual(expect.arrayContaining(['merged', 'alert-fired']));

    const alerts = await m.call('GET /api/v1/market/alerts', {}, { token: watcher, headers: { origin: m.base } });
    expect(alerts.body.alerts).toHaveLength(1);
    expect(alerts.body.alerts[0]).toMatchObject({ id: created.body.alert.id, armed: false, last: { at: m.clock.now(), hits: [[item, 900, 3]] } });
    // Firing queues a push for the account (the push function sends it to the account's subscriptions).
    expect(m.svc.queues.messages(PUSH_QUEUE.name).length).toBeGreaterThanOrEqual(1);
    expect(await m.drainQueues()).toBeGreaterThanOrEqual(1);
    expect(m.svc.queues.messages(PUSH_QUEUE.name)).toHaveLength(0);
  });

  it("opens a live socket on ws-connect, answers a bad message on ws-message, sweeps it at its credential's expiry and forgets it on ws-disconnect", async () => {
    const user = await m.user({ plan: 'free' });
    const token = await m.session(user.id, 3600);
    const edge = { 'x-origin-verify': m.svc.config.originVerify[0], origin: m.base };
    const upgrade = (connectionId: string, query: Record<string, string>) =>
      m.invoke<{ statusCode: number; body?: string }>('ws-connect', {
        headers: edge,
        queryStringParameters: query,
        requestContext: { connectionId, identity: { sourceIp: '198.51.100.9' } },
      });
    // 400 before the upgrade for a bad market; nothing stored.
    expect((await upgrade('bad', { token, market: 'nowhere' })).statusCode).toBe(400);
    expect(await m.svc.connections.get('bad')).toBeNull();

    m.svc.sockets.connect('s1');
    expect((await upgrade('s1', { token, market: MARKET })).statusCode).toBe(200);
    expect(await m.svc.connections.get('s1')).toMatchObject({ connectionId: 's1', market: MARKET, userId: user.id });

    const wsEvent = (connectionId: string, body?: string) => ({
      requestContext: { connectionId, routeKey: '$default', identity: { sourceIp: '198.51.100.9' } },
      body,
      isBase64Encoded: false,
    });
    expect(await m.invoke('ws-message', wsEvent('s1', 'not json'))).toEqual({ statusCode: 200 });
    expect(m.svc.sockets.messagesOf('s1')).toContainEqual({ t: 'error', error: 'bad_message' });

    // The session's hour and its socket's 10 minutes of grace are over: the sweep closes the socket with 4401.
    m.clock.advance(3600_000 + 11 * 60_000);
    await m.invoke('live-sweep', { source: 'aws.events', 'detail-type': 'Scheduled Event', time: new Date(m.clock.now()).toISOString() });
    expect(m.svc.sockets.closed.get('s1')).toBe(4401);

    expect(await m.invoke('ws-disconnect', wsEvent('s1'))).toEqual({ statusCode: 200 });
    expect(await m.svc.connections.get('s1')).toBeNull();
  });
});
