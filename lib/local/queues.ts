/**
 * In-process queues with SQS's contract as the functions see it: SQSEvent batches, FIFO queues deliver
 * one batch at a time per message group in order (other groups proceed in parallel), failed messages
 * are received again after a backoff and move to the dead-letter store after `maxReceives` receives;
 * standard queues honour `delaySeconds` on the service clock. `reportBatchItemFailures` is honoured.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueSpec } from '../topology';
import type { QueueMessage, QueuePort } from '../../shared/store/queue';
import type { Clock } from '../../shared/clock';

export type SqsConsumer = (event: SQSEvent) => Promise<{ batchItemFailures?: Array<{ itemIdentifier: string }> } | undefined | void>;

interface Pending {
  id: string;
  body: string;
  groupId?: string;
  dedupId?: string;
  sentAt: number;
  /** Service clock time before which the message is not visible (delays). */
  visibleAt: number;
  /** Wall time before which a failed message is not received again (retry backoff). */
  retryAt: number;
  receives: number;
}

export interface DeadLetter {
  queue: string;
  body: string;
  receives: number;
  error: string;
}

const DEDUP_WINDOW_MS = 5 * 60_000;
const RETRY_BACKOFF_MS = [0, 50, 200, 500];

/** One queue of the manifest. */
class LocalQueue {
  private readonly pending: Pending[] = [];
  private readonly busyGroups = new Set<string>();
  private readonly seenDedup = new Map<string, number>();
  private inFlight = 0;

  constructor(
    readonly spec: QueueSpec,
    private readonly clock: Clock,
    private readonly consumer: SqsConsumer,
    private readonly deadLetters: DeadLetter[],
    private readonly onChange: () => void,
  ) {}

  send(m: QueueMessage): void {
    const now = this.clock.now();
    if (this.spec.fifo) {
      if (!m.groupId) throw new Error(`${this.spec.name}: FIFO messages need a group id`);
      const dedup = m.dedupId ?? createHash('sha256').update(m.body).digest('hex');
      const seen = this.seenDedup.get(dedup);
      if (seen !== undefined && Date.now() - seen < DEDUP_WINDOW_MS) return;
      this.seenDedup.set(dedup, Date.now());
    }
    const delay = this.spec.fifo ? 0 : Math.max(0, Math.min(900, m.delaySeconds ?? 0)) * 1000;
    this.pending.push({ id: randomUUID(), body: m.body, groupId: m.groupId, dedupId: m.dedupId, sentAt: now, visibleAt: now + delay, retryAt: 0, receives: 0 });
    this.onChange();
  }

  /** True when a batch could be received now. */
  runnable(): boolean {
    return this.nextBatch(false).length > 0;
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** True when a failed message waits out its retry backoff. */
  hasRetryWaiting(): boolean {
    const wall = Date.now();
    return this.pending.some((p) => p.receives > 0 && p.retryAt > wall && p.retryAt !== Number.POSITIVE_INFINITY);
  }

  /** Messages waiting (including delayed ones). */
  get depth(): number {
    return this.pending.length;
  }

  /** Starts every batch that can run now; resolves when they finish. */
  async pump(): Promise<void> {
    const running: Promise<void>[] = [];
    for (;;) {
      const batch = this.nextBatch(true);
      if (batch.length === 0) break;
      running.push(this.deliver(batch));
    }
    await Promise.all(running);
  }

  private nextBatch(take: boolean): Pending[] {
    const now = this.clock.now();
    const wall = Date.now();
    const visible = (p: Pending) => p.visibleAt <= now && p.retryAt <= wall;
    if (this.spec.fifo) {
      // The head of each idle group, and the messages behind it in order (one batch per group at a time).
      for (const p of this.pending) {
        const g = p.groupId ?? '';
        if (this.busyGroups.has(g)) continue;
        const group = this.pending.filter((q) => (q.groupId ?? '') === g);
        if (!visible(group[0])) continue;
        const batch: Pending[] = [];
        for (const q of group) {
          if (!visible(q) || batch.length >= this.spec.batchSize) break;
          batch.push(q);
        }
        if (take) this.busyGroups.add(g);
        return batch;
      }
      return [];
    }
    const batch = this.pending.filter(visible).slice(0, this.spec.batchSize);
    if (take) for (const p of batch) p.retryAt = Number.POSITIVE_INFINITY;
    return batch;
  }

  private async deliver(batch: Pending[]): Promise<void> {
    this.inFlight++;
    const group = batch[0].groupId ?? '';
    for (const p of batch) p.receives++;
    const records: SQSRecord[] = batch.map((p) => ({
      messageId: p.id,
      receiptHandle: p.id,
      body: p.body,
      attributes: {
        ApproximateReceiveCount: String(p.receives),
        SentTimestamp: String(p.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(this.clock.now()),
        ...(p.groupId ? { MessageGroupId: p.groupId, MessageDeduplicationId: p.dedupId ?? '', SequenceNumber: '0' } : {}),
      } as SQSRecord['attributes'],
      messageAttributes: {},
      md5OfBody: createHash('md5').update(p.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.spec.name}${this.spec.fifo ? '.fifo' : ''}`,
      awsRegion: 'local',
    }));
    let failed = new Set<string>();
    let error = '';
    try {
      const out = await this.consumer({ Records: records });
      failed = new Set((out && 'batchItemFailures' in out ? out.batchItemFailures : undefined)?.map((f) => f.itemIdentifier) ?? []);
      error = 'reported as failed';
    } catch (err) {
      failed = new Set(batch.map((p) => p.id));
      error = err instanceof Error ? err.message : String(err);
    }
    for (const p of batch) {
      const i = this.pending.indexOf(p);
      if (!failed.has(p.id)) {
        if (i >= 0) this.pending.splice(i, 1);
      } else if (p.receives >= this.spec.maxReceives) {
        if (i >= 0) this.pending.splice(i, 1);
        this.deadLetters.push({ queue: this.spec.name, body: p.body, receives: p.receives, error });
      } else {
        const backoff = RETRY_BACKOFF_MS[Math.min(p.receives, RETRY_BACKOFF_MS.length - 1)];
        p.retryAt = Date.now() + backoff;
        setTimeout(() => this.onChange(), backoff + 1).unref();
      }
    }
    if (this.spec.fifo) this.busyGroups.delete(group);
    this.inFlight--;
    this.onChange();
  }
}

/** All queues of the manifest, as the `QueuePort` functions send to and the runtime pumps. */
export class LocalQueues implements QueuePort {
  private readonly queues = new Map<string, LocalQueue>();
  readonly deadLetters: DeadLetter[] = [];
  private readonly active = new Set<Promise<void>>();
  private scheduled = false;
  /** When false, messages wait for an explicit `drain()` (manual clock); when true, they run as they arrive. */
  autoRun = true;

  constructor(
    specs: readonly QueueSpec[],
    clock: Clock,
    consumerOf: (spec: QueueSpec) => SqsConsumer,
  ) {
    for (const spec of specs) this.queues.set(spec.name, new LocalQueue(spec, clock, consumerOf(spec), this.deadLetters, () => this.kick()));
  }

  async send(queue: string, messages: QueueMessage[]): Promise<void> {
    const q = this.queues.get(queue);
    if (!q) throw new Error(`unknown queue ${queue}`);
    for (const m of messages) q.send(m);
  }

  depth(queue: string): number {
    return this.queues.get(queue)?.depth ?? 0;
  }

  /** True when something can run now or is running. */
  get busy(): boolean {
    for (const q of this.queues.values()) if (q.busy || q.runnable()) return true;
    return false;
  }

  /** Runs until no queue has a runnable message or a batch in flight (retries with backoff included). */
  async drain(): Promise<void> {
    for (;;) {
      this.pumpAll();
      if (this.active.size > 0) {
        await Promise.race(this.active);
        continue;
      }
      if (this.busy) continue;
      // Failed messages waiting for their backoff still count as work.
      if (this.waitingRetry()) {
        await new Promise((r) => setTimeout(r, 25));
        continue;
      }
      return;
    }
  }

  private waitingRetry(): boolean {
    return [...this.queues.values()].some((q) => q.depth > 0 && q.hasRetryWaiting());
  }

  private pumpAll(): void {
    for (const q of this.queues.values()) {
      if (!q.runnable()) continue;
      const p = q.pump().finally(() => this.active.delete(p));
      this.active.add(p);
    }
  }

  /** Lets delayed messages that became visible (the clock moved) start. */
  poke(): void {
    this.kick();
  }

  private kick(): void {
    if (!this.autoRun || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pumpAll();
    });
  }
}
