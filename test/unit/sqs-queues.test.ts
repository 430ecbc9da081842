/** The SQS adapter of the queues port: the requests it makes (no engine plays SQS; the contract suite covers the semantics). */

import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { queueUrlOfArn, SqsQueues } from '../../shared/store/queue';

function stub(answer: (name: string, input: Record<string, unknown>) => unknown = () => ({})) {
  const sent: Array<{ name: string; input: Record<string, unknown> }> = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return answer(command.constructor.name, command.input);
    },
  } as unknown as SQSClient;
  return { client, sent };
}

describe('SQS queues adapter', () => {
  it('sends in batches of ten with group, deduplication, delay and string attributes', async () => {
    const { client, sent } = stub();
    const queues = new SqsQueues(client, { push: 'https://sqs.example/push' });
    await queues.send(
      'push',
      Array.from({ length: 11 }, (_, i) => ({ body: `m${i}`, groupId: 'g', dedupId: `d${i}`, delaySeconds: 5, attributes: { why: 'x' } })),
    );
    expect(sent.map((s) => [s.name, (s.input.Entries as unknown[]).length])).toEqual([
      ['SendMessageBatchCommand', 10],
      ['SendMessageBatchCommand', 1],
    ]);
    expect((sent[0].input.Entries as unknown[])[0]).toEqual({
      Id: '0',
      MessageBody: 'm0',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'd0',
      DelaySeconds: 5,
      MessageAttributes: { why: { DataType: 'String', StringValue: 'x' } },
    });
    expect(sent[0].input.QueueUrl).toBe('https://sqs.example/push');
  });

  it('fails a send when SQS reports failed entries, and a queue it has no URL for', async () => {
    const { client } = stub(() => ({ Failed: [{ Id: '0' }] }));
    const queues = new SqsQueues(client, { push: 'https://sqs.example/push' });
    await expect(queues.send('push', [{ body: 'a' }])).rejects.toThrow(/failed/);
    await expect(queues.send('merge-x', [{ body: 'a' }])).rejects.toThrow(/no URL/);
  });

  it('changes visibility on the queue of the records ARN, and reads received messages as the port says', async () => {
    const { client, sent } = stub((name) =>
      name === 'ReceiveMessageCommand'
        ? {
            Messages: [
              {
                Body: 'b',
                ReceiptHandle: 'r',
                Attributes: { MessageGroupId: 'g', MessageDeduplicationId: 'd', ApproximateReceiveCount: '3' },
                MessageAttributes: { redrives: { StringValue: '2' } },
              },
            ],
          }
        : {},
    );
    const queues = new SqsQueues(client, { dlq: 'https://sqs.example/dlq' });
    await queues.changeVisibility('arn:aws:sqs:us-east-1:123456789012:merge-a.fifo', ['h1', 'h2'], 30);
    expect(sent[0]).toEqual({
      name: 'ChangeMessageVisibilityBatchCommand',
      input: {
        QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/merge-a.fifo',
        Entries: [
          { Id: '0', ReceiptHandle: 'h1', VisibilityTimeout: 30 },
          { Id: '1', ReceiptHandle: 'h2', VisibilityTimeout: 30 },
        ],
      },
    });
    expect(await queues.receive('dlq', 50, 60)).toEqual([
      { body: 'b', receiptHandle: 'r', groupId: 'g', dedupId: 'd', receiveCount: 3, attributes: { redrives: '2' } },
    ]);
    expect(sent[1].input).toMatchObject({ QueueUrl: 'https://sqs.example/dlq', MaxNumberOfMessages: 10, VisibilityTimeout: 60 });
    await queues.delete('dlq', ['r']);
    expect(sent[2]).toEqual({ name: 'DeleteMessageBatchCommand', input: { QueueUrl: 'https://sqs.example/dlq', Entries: [{ Id: '0', ReceiptHandle: 'r' }] } });
  });

  it('turns a queue ARN into its URL', () => {
    expect(queueUrlOfArn('arn:aws-cn:sqs:cn-north-1:123:q')).toBe('https://sqs.cn-north-1.amazonaws.com.cn/123/q');
  });
});
