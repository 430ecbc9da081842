/**
 * The queues port: the manifest's queues by name (shared/topology.ts). SQS in AWS (shared/store/queue.ts), the
 * local runtime's in-process queues on the service clock (lib/local/background/queues.ts), an in-memory fake for unit
 * tests (shared/store/memory/queues.ts).
 */

export interface QueueMessage {
  body: string;
  /** FIFO: MessageGroupId (the market for merge queues). */
  groupId?: string;
  /** FIFO: MessageDeduplicationId. */
  dedupId?: string;
  /** Standard queues only (0..900). */
  delaySeconds?: number;
  /** String message attributes (why a merge was set aside, how often it was redriven). */
  attributes?: Record<string, string>;
}

/** A message taken from a queue that no function consumes (dead letters), to be moved and deleted. */
export interface ReceivedMessage {
  body: string;
  receiptHandle: string;
  groupId?: string;
  dedupId?: string;
  receiveCount: number;
  attributes: Record<string, string>;
}

/** Sends to, receives from and deletes messages of the manifest's queues. */
export interface QueuePort {
  send(queue: string, messages: QueueMessage[]): Promise<void>;
  /**
   * Hides messages a consumer received (by their records' receipt handles) for `seconds` from now: SQS
   * ChangeMessageVisibility on the queue of `sourceArn`, the records' `eventSourceARN`.
   */
  changeVisibility(sourceArn: string, receiptHandles: string[], seconds: number): Promise<void>;
  /** Receives up to 10 messages (FIFO: in group order), hidden for `visibilitySeconds` unless deleted. */
  receive(queue: string, max: number, visibilitySeconds: number): Promise<ReceivedMessage[]>;
  delete(queue: string, receiptHandles: string[]): Promise<void>;
}

/** A schema a message body is checked against (a zod schema's `safeParse`). */
export interface BodySchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

/** A message body as its consumer expects it, or null when it is not one (bad JSON or the wrong shape: dropped, never retried). */
export function parseBody<T>(schema: BodySchema<T>, body: string): T | null {
  try {
    const out = schema.safeParse(JSON.parse(body));
    return out.success ? out.data : null;
  } catch {
    return null;
  }
}
