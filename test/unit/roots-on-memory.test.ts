/**
 * Issue 25 point 1: the real handlers run on the in-memory fakes, with no engine. Each root is given exactly its
 * manifest's ports (`servicesFor(fn, memoryServices(clock))`, test/support/memory-service.ts); the flows are the
 * spec's (Device pairing, Uploads, Market reads, Alert evaluation), across the functions that serve them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemKey } from '../../shared/domain/item-key';
import { mergeQueueName } from '../../shared/topology';
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
});
