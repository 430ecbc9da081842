/**
 * Integration (issue 10, point 3): a book answered 200 is merged exactly once, in order, after an outage of
 * the bucket or the table of any length, on the service clock: merges back off instead of burning their
 * receives, dependency failures use none of a book's budget, dead letters come back through the redrive
 * schedule, and a book that fails for its own data is set aside (never redriven) with a log line.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import WebSocket from 'ws';
import { MERGE_BACKOFF_CAP_SECONDS } from '../../shared/domain/merge-retry';
import { MarketStore } from '../../shared/store/market-store';
import { MergeLog } from '../../shared/store/merge-log';
import { ScanLog } from '../../shared/store/scan-log';
import { deadLetterQueueName, MERGE_REJECTED_QUEUE, mergeQueueName } from '../../shared/topology';
import { listFiles, makeBook, uploadBook } from '../support/books';
import { TEST_WAIT_MS } from '../support/live-client';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const CAP_MS = MERGE_BACKOFF_CAP_SECONDS * 1000;

// biome-ignore lint/suspicious/noExplicitAny: live messages are asserted field by field
type Json = any;

describe('accepted books outlive outages', () => {
  let local: Local;
  let store: MarketStore;
  let table: string;
  const sockets: WebSocket[] = [];
  // The test reads the table past the `table` fault, which only the service's own clients see.
  const ddb = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint: inject('dynamodbEndpoint'), credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );

  beforeAll(async () => {
    local = await startLocal();
    table = local.runtime.operator.config.tableName;
    store = new MarketStore(ddb, table);
  });
  afterEach(async () => {
    local.runtime.queues.autoRun = true;
    await local.faults({ storage: 'up', table: 'up' });
    for (const ws of sockets.splice(0)) ws.terminate();
  });
  afterAll(() => local.close());

  /** Uploads one book per `at` (each from its own caller) while delivery is held, so none is merged yet. */
  async function acceptHeld(market: string, ats: number[]): Promise<void> {
    local.runtime.queues.autoRun = false;
    for (const at of ats) {
      const key = await local.apiKey((await local.user()).id);
      const res = await uploadBook(local, key, makeBook(at, { market, keys: 120, first: 1000 + (at % 97) }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect(local.runtime.queues.depth(mergeQueueName(market))).toBe(ats.length);
  }

  /** A live socket on `market` collecting its messages (a free session: `ah` without urls). */
  async function watch(market: string): Promise<Json[]> {
    const user = await local.user();
    const token = await local.session(user.id, { expiresIn: 30 * 86_400 });
    const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live?market=${market}`, { headers: { authorization: `Bearer ${token}` } });
    sockets.push(ws);
    const messages: Json[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    // The stream poller sends `hello` by itself; settling here would run held merges.
    await vi.waitFor(() => expect(messages.map((m) => m.t)).toContain('hello'), { timeout: TEST_WAIT_MS, interval: 20 });
    return messages;
  }

  /** Holds the outage for `ms` of service time, moving the clock in `step`s with a settle after each. */
  async function hold(ms: number, step: number, market: string): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await local.advance(step);
      await local.settle();
      expect((await store.meta(market)).seq).toBe(0);
    }
  }

  /** Receives so far of the market's held messages (the head's first). */
  const receives = (market: string) => local.runtime.queues.contents(mergeQueueName(market)).map((m) => m.receives);

  /** Every accepted book merged once, in `at` order: dense seqs, one merge record, scan log entry and `ah` each. */
  async function expectMergedOnce(market: string, ats: number[], messages: Json[]): Promise<void> {
    const meta = await store.meta(market);
    expect(meta.seq).toBe(ats.length);
    expect(meta.pending ?? null).toBeNull();
    const now = await local.now();
    const records = await new MergeLog(ddb, table).after(market, 0, now);
    expect(records.map((r) => [r.seq, r.bookAt])).toEqual(ats.map((at, i) => [i + 1, at]));
    const scans = await new ScanLog(ddb, table, local.runtime.clock).between(market, 0, now);
    expect(scans.map((s) => s.at)).toEqual(ats);
    const ah = messages.filter((m) => m.t === 'ah');
    expect(ah.map((m) => m.seq)).toEqual(ats.map((_, i) => i + 1));
    expect(local.runtime.queues.depth(mergeQueueName(market))).toBe(0);
    expect(local.runtime.queues.deadLetters).toEqual([]);
    expect(local.runtime.queues.depth(MERGE_REJECTED_QUEUE.name)).toBe(0);
  }

  it('merges every book accepted before an hour-long bucket outage exactly once, in order, within the backoff cap after it ends', async () => {
    const market = 'forever.normal.alliance.us';
    const now = await local.now();
    const ats = [now - 30 * MINUTE, now - 20 * MINUTE, now - 10 * MINUTE];
    await acceptHeld(market, ats);
    const messages = await watch(market);
    expect(receives(market)).toEqual([0, 0, 0]);

    await local.faults({ storage: 'down' });
    local.runtime.queues.autoRun = true;
    await local.settle();
    // The first retry is immediate, then the message waits on the service clock: nothing burns its receives.
    expect(receives(market)).toEqual([2, 2, 2]);
    await local.settle();
    expect(receives(market)).toEqual([2, 2, 2]);
    await hold(HOUR, 5 * MINUTE, market);
    expect(receives(market)[0]).toBeLessThanOrEqual(12);
    expect(local.runtime.queues.deadLetters).toEqual([]);

    await local.faults({ storage: 'up' });
    await local.advance(CAP_MS);
    await local.settle();
    await expectMergedOnce(market, ats, messages);
  });

  it('merges every book accepted before an hour-long table outage exactly once, in order; uploads meanwhile answer 503 storage_failed', async () => {
    const market = 'forever.pvp.alliance.us';
    const now = await local.now();
    const ats = [now - 30 * MINUTE, now - 20 * MINUTE, now - 10 * MINUTE];
    await acceptHeld(market, ats);

    await local.faults({ table: 'down' });
    local.runtime.queues.autoRun = true;
    await local.settle();
    expect(receives(market)).toEqual([2, 2, 2]);
    const key = await (async () => {
      await local.faults({ table: 'up' });
      const k = await local.apiKey((await local.user()).id);
      await local.faults({ table: 'down' });
      return k;
    })();
    const during = makeBook(now - 5 * MINUTE, { market, keys: 120, first: 5000 });
    expect(await uploadBook(local, key, during)).toMatchObject({ status: 503, body: { error: 'storage_failed' } });
    expect(await local.api('GET', `/api/v1/ah/${market}`)).toMatchObject({ status: 503, body: { error: 'unavailable' } });
    await local.faults({ table: 'up' });
    expect(await listFiles(local, `books/v1/${market}/`)).toHaveLength(3);
    await local.faults({ table: 'down' });
    await hold(HOUR, 5 * MINUTE, market);
    expect(receives(market)[0]).toBeLessThanOrEqual(12);

    await local.faults({ table: 'up' });
    const messages = await watch(market);
    await local.advance(CAP_MS);
    await local.settle();
    await expectMergedOnce(market, ats, messages);
    // Nothing of the refused upload survived the outage: the same book is accepted now, and merges last.
    expect(await uploadBook(local, key, during)).toMatchObject({ status: 200, body: { at: during.at } });
    await local.settle();
    expect((await store.meta(market)).seq).toBe(4);
  });

  it('returns a book that SQS dead-lettered during a day-long outage to its queue once the table answers, and merges it once', async () => {
    const market = 'forever.rp.alliance.us';
    const now = await local.now();
    await acceptHeld(market, [now - 10 * MINUTE]);
    await local.faults({ table: 'down' });
    local.runtime.queues.autoRun = true;
    // 100 receives at the 15-minute cap: a little more than a day.
    for (let i = 0; i < 120 && local.runtime.queues.deadLetters.length === 0; i++) {
      await local.advance(CAP_MS);
      await local.settle();
    }
    const [dead] = local.runtime.queues.deadLetters;
    expect(dead).toMatchObject({ queue: mergeQueueName(market), receives: 100 });
    expect(local.runtime.queues.depth(mergeQueueName(market))).toBe(0);
    // The redrive runs but moves nothing while the table does not answer.
    await local.advance(5 * MINUTE);
    expect(await local.tick()).toContain('redrive');
    expect(local.runtime.queues.depth(deadLetterQueueName(mergeQueueName(market)))).toBe(1);

    await local.faults({ table: 'up' });
    const messages = await watch(market);
    await local.advance(5 * MINUTE);
    expect(await local.tick()).toContain('redrive');
    expect(local.runtime.queues.depth(deadLetterQueueName(mergeQueueName(market)))).toBe(0);
    const meta = await store.meta(market);
    expect(meta.seq).toBe(1);
    expect(messages.filter((m) => m.t === 'ah').map((m) => m.seq)).toEqual([1]);
  }, 180_000);

  it('sets aside a book that fails for its own data after 3 failures, logs its market and at without its path, and never redrives it', async () => {
    const market = 'forever.normal.horde.us';
    const now = await local.now();
    const at = now - 10 * MINUTE;
    await acceptHeld(market, [at]);
    const [file] = await listFiles(local, `books/v1/${market}/`);
    const cap = file.key.match(/-([A-Za-z0-9_-]{22})\.json\.gz$/)?.[1];
    expect(cap).toBeDefined();
    const plain = new S3Client({
      region: 'us-east-1',
      endpoint: inject('s3Endpoint'),
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await plain.send(new PutObjectCommand({ Bucket: local.runtime.bucketName, Key: file.key, Body: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4]) }));

    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      local.runtime.queues.autoRun = true;
      await local.settle();
      expect(receives(market)).toEqual([2]);
      await local.advance(30_000);
      await local.settle();
      expect(local.runtime.queues.depth(mergeQueueName(market))).toBe(0);
      const [rejected] = local.runtime.queues.contents(MERGE_REJECTED_QUEUE.name);
      expect(rejected.attributes).toMatchObject({ reason: 'data', market, at: String(at) });
      expect(local.runtime.queues.deadLetters).toEqual([]);

      const lines = errors.mock.calls.map((c) => String(c[0]));
      const line = lines.find((l) => l.includes('merge rejected'));
      expect(line).toBeDefined();
      expect(JSON.parse(line as string)).toMatchObject({ level: 'error', market, at, failures: 3 });
      for (const l of lines) expect(l).not.toContain(cap);
    } finally {
      errors.mockRestore();
    }

    // Never redriven: the schedule runs, the book stays aside and unmerged; the market goes on merging.
    await local.advance(5 * MINUTE);
    expect(await local.tick()).toContain('redrive');
    expect(local.runtime.queues.depth(MERGE_REJECTED_QUEUE.name)).toBe(1);
    expect((await store.meta(market)).seq).toBe(0);
    const key = await local.apiKey((await local.user()).id);
    expect((await uploadBook(local, key, makeBook(now - 5 * MINUTE, { market }))).status).toBe(200);
    await local.settle();
    expect((await store.meta(market)).seq).toBe(1);
  });
});
