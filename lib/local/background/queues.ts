/**
 * In-process queues with SQS's contract as the functions see it, on the service clock: SQSEvent batches,
 * FIFO queues refuse a message without a group or deduplication id (the stack's have no content-based
 * deduplication), deduplicate by that id for five minutes and deliver one batch at a time per message group
 * in order (a group waits while its head is invisible), a received message stays invisible for the queue's
 * visibility timeout unless the consumer changes it, failed messages move to the queue's dead-letter queue
 * after `maxReceives` receives, messages expire after the retention period, standard queues honour
 * `delaySeconds`. Queues without a consumer (the dead-letter queues and the rejected merges) are read with
 * `receive` and `delete`, as SQS's API does.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { Clock } from '../../../shared/clock';
import type { QueueMessage, QueuePort, ReceivedMessage } from '../../../shared/ports/queues';
import { fifoRefusal } from '../../../shared/store/memory/queues';
import { deadLetterQueueName, type QueueSpec } from '../../../shared/topology';

export type SqsConsumer = (event: SQSEvent) => Promise<{ batchItemFailures?: Array<{ itemIdentifier: string }> } | undefined | void>;

interface Pending {
  /** Message id and, locally, its receipt handle. */
  id: string;
  body: string;
  groupId?: string;
  dedupId?: string;
  attributes: Record<string, string>;
  /** Service clock time it was enqueued (moved into a FIFO dead-letter queue resets it, as SQS does). */
  sentAt: number;
  /** Service clock time before which it is not received (delays, in-flight visibility, backoff). */
  visibleAt: number;
  receives: number;
  inFlight: boolean;
  /** Why its last delivery failed (for the dead-letter view). */
  error?: string;
}

export interface DeadLetter {
  queue: string;
  body: string;
  receives: number;
  error: string;
}

/** What a queue needs to exist: consumed queues carry their manifest spec, the others only this. */
export interface QueueShape {
  name: string;
  fifo: boolean;
  retentionDays?: number;
}

const DEDUP_WINDOW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
/** SQS's default retention. */
const DEFAULT_RETENTION_DAYS = 4;

/** One queue: consumed by its manifest function (`consumer`), or read through `receive` only. */
class LocalQueue {
  private readonly pending: Pending[] = [];
  private readonly busyGroups = new Set<string>();
  private readonly seenDedup = new Map<string, number>();
  private inFlight = 0;
  readonly arn: string;

  constructor(
    readonly shape: QueueShape,
    private readonly clock: Clock,
    private readonly consumed: { spec: QueueSpec; consumer: SqsConsumer; deadLetters: LocalQueue } | null,
    private readonly onChange: () => void,
  ) {
    this.arn = `arn:aws:sqs:local:000000000000:${shape.name}${shape.fifo ? '.fifo' : ''}`;
  }

  send(m: QueueMessage): void {
    const now = this.clock.now();
    if (this.shape.fifo) {
      const refusal = fifoRefusal(m);
      if (refusal) throw refusal;
      const dedup = m.dedupId as string;
      const seen = this.seenDedup.get(dedup);
      if (seen !== undefined && now - seen < DEDUP_WINDOW_MS) return;
      this.seenDedup.set(dedup, now);
    }
    const delay = this.shape.fifo ? 0 : Math.max(0, Math.min(900, m.delaySeconds ?? 0)) * 1000;
    this.pending.push({
      id: randomUUID(),
      body: m.body,
      groupId: m.groupId,
      dedupId: m.dedupId,
      attributes: { ...m.attributes },
      sentAt: now,
      visibleAt: now + delay,
      receives: 0,
      inFlight: false,
    });
    this.onChange();
  }

  /** A message SQS moved here from its source queue (no deduplication; FIFO resets its enqueue time). */
  adopt(p: Pending): void {
    this.pending.push({ ...p, id: randomUUID(), sentAt: this.shape.fifo ? this.clock.now() : p.sentAt, visibleAt: this.clock.now(), inFlight: false });
  }

  /** True when a batch could be delivered to the consumer now. */
  runnable(): boolean {
    return this.consumed !== null && this.nextBatch(this.consumed.spec.batchSize, false).length > 0;
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Messages waiting (delayed, invisible and in flight included). */
  get depth(): number {
    this.expire();
    return this.pending.length;
  }

  /** What the queue holds, for tests and the control API. */
  contents(): Array<{ body: string; receives: number; visibleAt: number; attributes: Record<string, string>; error?: string }> {
    this.expire();
    return this.pending.map((p) => ({
      body: p.body,
      receives: p.receives,
      visibleAt: p.visibleAt,
      attributes: { ...p.attributes },
      ...(p.error ? { error: p.error } : {}),
    }));
  }

  /** Starts every batch that can run now; resolves when they finish. */
  async pump(): Promise<void> {
    if (!this.consumed) return;
    const running: Promise<void>[] = [];
    for (;;) {
      const batch = this.nextBatch(this.consumed.spec.batchSize, true);
      if (batch.length === 0) break;
      running.push(this.deliver(batch));
    }
    await Promise.all(running);
  }

  changeVisibility(handles: readonly string[], seconds: number): void {
    const at = this.clock.now() + seconds * 1000;
    for (const p of this.pending) if (handles.includes(p.id)) p.visibleAt = at;
    this.onChange();
  }

  /** SQS ReceiveMessage on a queue nobody consumes: visible messages in group order, hidden for `visibilitySeconds`. */
  receive(max: number, visibilitySeconds: number): ReceivedMessage[] {
    const batch = this.nextBatch(Math.min(10, max), false);
    const now = this.clock.now();
    return batch.map((p) => {
      p.receives++;
      p.visibleAt = now + visibilitySeconds * 1000;
      return { body: p.body, receiptHandle: p.id, groupId: p.groupId, dedupId: p.dedupId, receiveCount: p.receives, attributes: { ...p.attributes } };
    });
  }

  delete(handles: readonly string[]): void {
    for (const h of handles) {
      const i = this.pending.findIndex((p) => p.id === h);
      if (i >= 0) this.pending.splice(i, 1);
    }
  }

  /** Drops messages older than the retention period, as SQS does. */
  private expire(): void {
    const oldest = this.clock.now() - (this.shape.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS;
    for (let i = this.pending.length - 1; i >= 0; i--) if (!this.pending[i].inFlight && this.pending[i].sentAt < oldest) this.pending.splice(i, 1);
  }

  private nextBatch(size: number, take: boolean): Pending[] {
    this.expire();
    const now = this.clock.now();
    const visible = (p: Pending) => !p.inFlight && p.visibleAt <= now;
    if (this.shape.fifo) {
      // The head of each idle group, and the messages behind it in order (one batch per group at a time).
      const tried = new Set<string>();
      for (const p of this.pending) {
        const g = p.groupId ?? '';
        if (tried.has(g) || this.busyGroups.has(g)) continue;
        tried.add(g);
        const group = this.pending.filter((q) => (q.groupId ?? '') === g);
        if (!visible(group[0])) continue;
        const batch: Pending[] = [];
        for (const q of group) {
          if (!visible(q) || batch.length >= size) break;
          batch.push(q);
        }
        if (take) this.busyGroups.add(g);
        return batch;
      }
      return [];
    }
    const batch = this.pending.filter(visible).slice(0, size);
    if (take) for (const p of batch) p.inFlight = true;
    return batch;
  }

  private async deliver(batch: Pending[]): Promise<void> {
    const { spec, consumer, deadLetters } = this.consumed!;
    this.inFlight++;
    const group = batch[0].groupId ?? '';
    const now = this.clock.now();
    for (const p of batch) {
      p.receives++;
      p.inFlight = true;
      p.visibleAt = now + spec.visibilityTimeoutSeconds * 1000;
    }
    const records: SQSRecord[] = batch.map((p) => ({
      messageId: p.id,
      receiptHandle: p.id,
      body: p.body,
      attributes: {
        ApproximateReceiveCount: String(p.receives),
        SentTimestamp: String(p.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(now),
        ...(p.groupId ? { MessageGroupId: p.groupId, MessageDeduplicationId: p.dedupId ?? '', SequenceNumber: '0' } : {}),
      } as SQSRecord['attributes'],
      messageAttributes: Object.fromEntries(
        Object.entries(p.attributes).map(([k, v]) => [k, { stringValue: v, dataType: 'String', stringListValues: [], binaryListValues: [] }]),
      ) as SQSMessageAttributes,
      md5OfBody: createHash('md5').update(p.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: 'local',
    }));
    let failed = new Set<string>();
    let error = '';
    try {
      const out = await consumer({ Records: records });
      failed = new Set((out && 'batchItemFailures' in out ? out.batchItemFailures : undefined)?.map((f) => f.itemIdentifier) ?? []);
      error = 'reported as failed';
    } catch (err) {
      // A crash: every message comes back once its visibility timeout passes.
      failed = new Set(batch.map((p) => p.id));
      error = err instanceof Error ? err.message : String(err);
    }
    for (const p of batch) {
      p.inFlight = false;
      const i = this.pending.indexOf(p);
      if (!failed.has(p.id)) {
        if (i >= 0) this.pending.splice(i, 1);
        continue;
      }
      p.error = error;
      if (p.receives >= spec.maxReceives) {
        if (i >= 0) this.pending.splice(i, 1);
        deadLetters.adopt(p);
      }
    }
    if (this.shape.fifo) this.busyGroups.delete(group);
    this.inFlight--;
    this.onChange();
  }
}

/**
 * All queues of the manifest with their dead-letter queues (named by `deadLetterQueueName`) and the given
 * queues nobody consumes, as the `QueuePort` functions use and the runtime pumps.
 */
export class LocalQueues implements QueuePort {
  private readonly queues = new Map<string, LocalQueue>();
  private readonly consumedNames: string[] = [];
  private readonly active = new Set<Promise<void>>();
  private scheduled = false;
  /** When false, messages wait for an explicit `drain()`; when true, they run as they become visible. */
  autoRun = true;

  constructor(specs: readonly QueueSpec[], clock: Clock, consumerOf: (spec: QueueSpec) => SqsConsumer, unconsumed: readonly QueueShape[] = []) {
    const kick = () => this.kick();
    for (const shape of unconsumed) this.queues.set(shape.name, new LocalQueue(shape, clock, null, kick));
    for (const spec of specs) {
      const dlq = new LocalQueue({ name: deadLetterQueueName(spec.name), fifo: spec.fifo, retentionDays: 14 }, clock, null, kick);
      this.queues.set(dlq.shape.name, dlq);
      this.queues.set(spec.name, new LocalQueue(spec, clock, { spec, consumer: consumerOf(spec), deadLetters: dlq }, kick));
      this.consumedNames.push(spec.name);
    }
  }

  private queue(name: string): LocalQueue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  /** As SQS's batch send: a refused message (shared/store/memory/queues.ts `fifoRefusal`) fails the call, the others go. */
  async send(queue: string, messages: QueueMessage[]): Promise<void> {
    const q = this.queue(queue);
    let refused: unknown;
    for (const m of messages) {
      try {
        q.send(m);
      } catch (err) {
        refused ??= err;
      }
    }
    if (refused !== undefined) throw refused;
  }

  async changeVisibility(sourceArn: string, receiptHandles: string[], seconds: number): Promise<void> {
    const q = [...this.queues.values()].find((x) => x.arn === sourceArn);
    if (!q) throw new Error(`unknown queue ${sourceArn}`);
    q.changeVisibility(receiptHandles, seconds);
  }

  async receive(queue: string, max: number, visibilitySeconds: number): Promise<ReceivedMessage[]> {
    return this.queue(queue).receive(max, visibilitySeconds);
  }

  async delete(queue: string, receiptHandles: string[]): Promise<void> {
    this.queue(queue).delete(receiptHandles);
  }

  depth(queue: string): number {
    return this.queues.get(queue)?.depth ?? 0;
  }

  /** What a queue holds (its dead-letter queue: `deadLetterQueueName(name)`). */
  contents(queue: string): ReturnType<LocalQueue['contents']> {
    return this.queue(queue).contents();
  }

  /** Every queue's name: the manifest's, their dead-letter queues and the unconsumed ones. */
  names(): string[] {
    return [...this.queues.keys()];
  }

  /** Every message SQS moved to a manifest queue's dead-letter queue, with the queue it came from. */
  get deadLetters(): DeadLetter[] {
    return this.consumedNames.flatMap((name) =>
      this.queue(deadLetterQueueName(name))
        .contents()
        .map((m) => ({ queue: name, body: m.body, receives: m.receives, error: m.error ?? '' })),
    );
  }

  /** True when something can run now or is running. */
  get busy(): boolean {
    for (const q of this.queues.values()) if (q.busy || q.runnable()) return true;
    return false;
  }

  /** Runs until no queue has a message visible at the service clock or a batch in flight. */
  async drain(): Promise<void> {
    for (;;) {
      this.pumpAll();
      if (this.active.size > 0) {
        await Promise.race(this.active);
        continue;
      }
      if (!this.busy) return;
    }
  }

  /** Waits for the batches in flight, starting none (a stopping runtime lets them finish before its engines go). */
  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  private pumpAll(): void {
    for (const q of this.queues.values()) {
      if (!q.runnable()) continue;
      const p = q.pump().finally(() => this.active.delete(p));
      this.active.add(p);
    }
  }

  /** Lets messages that became visible (the clock moved) start. */
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
