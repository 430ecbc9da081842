/**
 * In-memory fake of the queues port (unit tests), on the service clock: FIFO queues refuse a message without a
 * group or deduplication id (as SQS does without content-based deduplication), deduplicate within five
 * minutes and hand out each group's messages in order (a group waits while its head is hidden), standard
 * queues honour delays, received messages stay hidden for their visibility timeout unless deleted. The
 * contract suite holds it to the local runtime's queues.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock';
import type { QueueMessage, QueuePort, ReceivedMessage } from '../../ports/queues';
import { deadLetterQueueName, MERGE_REJECTED_QUEUE, QUEUES } from '../../topology';

interface Held {
  id: string;
  message: QueueMessage;
  visibleAt: number;
  receives: number;
}

interface Queue {
  fifo: boolean;
  held: Held[];
  dedup: Map<string, number>;
}

const DEDUP_WINDOW_MS = 5 * 60_000;

/** SQS's refusal of one message (the SDK names the error after its code: `MissingParameter`, …). */
export class SqsRefusal extends Error {
  constructor(
    readonly code: 'MissingParameter' | 'InvalidParameterValue',
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

/**
 * Why SQS refuses a message to a FIFO queue as the stack makes them (lib/constructs/queues.ts sets
 * `ContentBasedDeduplication: false`, so SQS never derives a deduplication id from the body): no group id, or
 * no deduplication id. The fakes refuse it as SQS does rather than deduplicate by content, so a producer that
 * forgets the id fails in the tests and locally, not first in AWS.
 */
export function fifoRefusal(m: QueueMessage): SqsRefusal | undefined {
  if (!m.groupId)
    return new SqsRefusal('MissingParameter', 'The request must contain the parameter MessageGroupId (every message to a FIFO queue has a group).');
  if (!m.dedupId)
    return new SqsRefusal(
      'InvalidParameterValue',
      'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
    );
  return undefined;
}

/** The queue name an SQS ARN (or a local one) names: its last segment, without `.fifo`. */
export const queueNameOfArn = (arn: string): string => arn.slice(arn.lastIndexOf(':') + 1).replace(/\.fifo$/, '');

/** Every queue of the manifest, their dead-letter queues and the rejected merges. */
export const MANIFEST_QUEUE_SHAPES: ReadonlyArray<{ name: string; fifo: boolean }> = [
  ...QUEUES.flatMap((q) => [
    { name: q.name, fifo: q.fifo },
    { name: deadLetterQueueName(q.name), fifo: q.fifo },
  ]),
  { name: MERGE_REJECTED_QUEUE.name, fifo: MERGE_REJECTED_QUEUE.fifo },
];

export class MemoryQueues implements QueuePort {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly clock: Clock,
    shapes: ReadonlyArray<{ name: string; fifo: boolean }> = MANIFEST_QUEUE_SHAPES,
  ) {
    for (const s of shapes) this.queues.set(s.name, { fifo: s.fifo, held: [], dedup: new Map() });
  }

  /** The ARN of a queue (what an SQS event's records carry as `eventSourceARN`). */
  arnOf(name: string): string {
    return `arn:aws:sqs:us-east-1:000000000000:${name}${this.queue(name).fifo ? '.fifo' : ''}`;
  }

  /** The messages a queue holds, hidden ones included (tests). */
  messages(name: string): QueueMessage[] {
    return this.queue(name).held.map((h) => h.message);
  }

  private queue(name: string): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  async send(queue: string, messages: QueueMessage[]): Promise<void> {
    const q = this.queue(queue);
    const now = this.clock.now();
    let refused: SqsRefusal | undefined;
    for (const m of messages) {
      if (q.fifo) {
        // As SQS's batch send: the other messages go, the call fails for the refused one.
        const refusal = fifoRefusal(m);
        if (refusal) {
          refused ??= refusal;
          continue;
        }
        const key = m.dedupId as string;
        const seen = q.dedup.get(key);
        if (seen !== undefined && now - seen < DEDUP_WINDOW_MS) continue;
        q.dedup.set(key, now);
      }
      const delay = q.fifo ? 0 : Math.max(0, Math.min(900, m.delaySeconds ?? 0)) * 1000;
      q.held.push({ id: randomUUID(), message: structuredClone(m), visibleAt: now + delay, receives: 0 });
    }
    if (refused) throw refused;
  }

  async changeVisibility(sourceArn: string, receiptHandles: string[], seconds: number): Promise<void> {
    const at = this.clock.now() + seconds * 1000;
    for (const h of this.queue(queueNameOfArn(sourceArn)).held) if (receiptHandles.includes(h.id)) h.visibleAt = at;
  }

  async receive(queue: string, max: number, visibilitySeconds: number): Promise<ReceivedMessage[]> {
    const q = this.queue(queue);
    const now = this.clock.now();
    const visible = (h: Held) => h.visibleAt <= now;
    let batch: Held[];
    if (q.fifo) {
      // The first group whose head is visible, and its messages behind the head in order.
      const groups = [...new Set(q.held.map((h) => h.message.groupId ?? ''))];
      const group = groups.map((g) => q.held.filter((h) => (h.message.groupId ?? '') === g)).find((hs) => visible(hs[0])) ?? [];
      batch = [];
      for (const h of group) {
        if (!visible(h) || batch.length >= Math.min(10, max)) break;
        batch.push(h);
      }
    } else {
      batch = q.held.filter(visible).slice(0, Math.min(10, max));
    }
    return batch.map((h) => {
      h.receives++;
      h.visibleAt = now + visibilitySeconds * 1000;
      return {
        body: h.message.body,
        receiptHandle: h.id,
        groupId: h.message.groupId,
        dedupId: h.message.dedupId,
        receiveCount: h.receives,
        attributes: { ...h.message.attributes },
      };
    });
  }

  async delete(queue: string, receiptHandles: string[]): Promise<void> {
    const q = this.queue(queue);
    q.held = q.held.filter((h) => !receiptHandles.includes(h.id));
  }
}
