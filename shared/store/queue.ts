import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';

export interface QueueMessage {
  body: string;
  /** FIFO: MessageGroupId (the market for merge queues). */
  groupId?: string;
  /** FIFO: MessageDeduplicationId. */
  dedupId?: string;
  /** Standard queues only (0..900). */
  delaySeconds?: number;
}

/** Sends messages to a queue named in lib/topology.ts. SQS in AWS, in-process queues locally. */
export interface QueuePort {
  send(queue: string, messages: QueueMessage[]): Promise<void>;
}

/** The SQS adapter: queue names resolve to URLs through config. */
export class SqsQueues implements QueuePort {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: Record<string, string>,
  ) {}

  async send(queue: string, messages: QueueMessage[]): Promise<void> {
    const url = this.urls[queue];
    if (!url) throw new Error(`no URL configured for queue ${queue}`);
    for (let i = 0; i < messages.length; i += 10) {
      const batch = messages.slice(i, i + 10);
      const out = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: batch.map((m, j) => ({
            Id: String(j),
            MessageBody: m.body,
            MessageGroupId: m.groupId,
            MessageDeduplicationId: m.dedupId,
            DelaySeconds: m.delaySeconds,
          })),
        }),
      );
      if (out.Failed && out.Failed.length > 0) throw new Error(`queue ${queue}: ${out.Failed.length} messages failed`);
    }
  }
}
