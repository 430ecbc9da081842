/** The SQS adapter of the queues port (shared/ports/queues.ts): queue names resolve to URLs through config. */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { QueueMessage, QueuePort, ReceivedMessage } from '../ports/queues';
import { atPort } from './dependency-failure';

/** The URL of a queue from its ARN (`arn:<partition>:sqs:<region>:<account>:<name>`). */
export function queueUrlOfArn(arn: string): string {
  const [, partition, , region, account, name] = arn.split(':');
  if (!region || !account || !name) throw new Error(`not an SQS queue ARN: ${arn}`);
  return `https://sqs.${region}.amazonaws.com${partition === 'aws-cn' ? '.cn' : ''}/${account}/${name}`;
}

/**
 * The SQS queues. Each message sent carries the sender's X-Ray trace as its `AWSTraceHeader` system attribute
 * when `traceHeader` gives one, so the consumer's trace (the merge, the push) continues the sender's.
 */
export class SqsQueues implements QueuePort {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: Record<string, string>,
    private readonly traceHeader: () => string | undefined = () => undefined,
  ) {
    // biome-ignore lint/correctness/noConstructorReturn: the port its callers get is this adapter behind atPort
    return atPort('queue', this);
  }

  private url(queue: string): string {
    const url = this.urls[queue];
    if (!url) throw new Error(`no URL configured for queue ${queue}`);
    return url;
  }

  async send(queue: string, messages: QueueMessage[]): Promise<void> {
    const url = this.url(queue);
    const trace = this.traceHeader();
    const system = trace ? { AWSTraceHeader: { DataType: 'String', StringValue: trace } } : undefined;
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
            MessageAttributes: m.attributes
              ? Object.fromEntries(Object.entries(m.attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }]))
              : undefined,
            MessageSystemAttributes: system,
          })),
        }),
      );
      if (out.Failed && out.Failed.length > 0) throw new Error(`queue ${queue}: ${out.Failed.length} messages failed`);
    }
  }

  async changeVisibility(sourceArn: string, receiptHandles: string[], seconds: number): Promise<void> {
    const url = queueUrlOfArn(sourceArn);
    for (let i = 0; i < receiptHandles.length; i += 10) {
      const out = await this.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: receiptHandles.slice(i, i + 10).map((h, j) => ({ Id: String(j), ReceiptHandle: h, VisibilityTimeout: seconds })),
        }),
      );
      if (out.Failed && out.Failed.length > 0) throw new Error(`queue ${sourceArn}: ${out.Failed.length} visibility changes failed`);
    }
  }

  async receive(queue: string, max: number, visibilitySeconds: number): Promise<ReceivedMessage[]> {
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.url(queue),
        MaxNumberOfMessages: Math.min(10, Math.max(1, max)),
        VisibilityTimeout: visibilitySeconds,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return (out.Messages ?? []).map((m) => ({
      body: m.Body ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      groupId: m.Attributes?.MessageGroupId,
      dedupId: m.Attributes?.MessageDeduplicationId,
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
      attributes: Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).flatMap(([k, v]) => (v.StringValue !== undefined ? [[k, v.StringValue]] : []))),
    }));
  }

  async delete(queue: string, receiptHandles: string[]): Promise<void> {
    const url = this.url(queue);
    for (let i = 0; i < receiptHandles.length; i += 10) {
      const out = await this.client.send(
        new DeleteMessageBatchCommand({ QueueUrl: url, Entries: receiptHandles.slice(i, i + 10).map((h, j) => ({ Id: String(j), ReceiptHandle: h })) }),
      );
      if (out.Failed && out.Failed.length > 0) throw new Error(`queue ${queue}: ${out.Failed.length} deletes failed`);
    }
  }
}
