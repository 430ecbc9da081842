/**
 * The SQS adapter of the queues port: the requests it makes and how it reads SQS's answers, on a real
 * `SQSClient` whose transport aws-sdk-client-mock replaces (no engine plays SQS; the contract suite covers the
 * semantics).
 */

import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { queueUrlOfArn, SqsQueues } from '../../shared/store/queue';

const sqs = mockClient(SQSClient);
const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });

afterEach(() => sqs.reset());
// The unit project shares modules between files (isolate: false): SQSClient's prototype goes back as it was.
afterAll(() => sqs.restore());

describe('SQS queues adapter', () => {
  it('sends in batches of ten with group, deduplication, delay and string attributes', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const queues = new SqsQueues(client, { push: 'https://sqs.example/push' });
    await queues.send(
      'push',
      Array.from({ length: 11 }, (_, i) => ({ body: `m${i}`, groupId: 'g', dedupId: `d${i}`, delaySeconds: 5, attributes: { why: 'x' } })),
    );
    const batches = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(batches.map((b) => b.Entries?.length)).toEqual([10, 1]);
    expect(batches[0].QueueUrl).toBe('https://sqs.example/push');
    expect(batches[0].Entries?.[0]).toEqual({
      Id: '0',
      MessageBody: 'm0',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'd0',
      DelaySeconds: 5,
      MessageAttributes: { why: { DataType: 'String', StringValue: 'x' } },
    });
    expect(sqs.calls()).toHaveLength(2);
  });

  it('fails a send when SQS reports failed entries, when SQS refuses, and for a queue it has no URL for', async () => {
    const queues = new SqsQueues(client, { push: 'https://sqs.example/push' });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
    await expect(queues.send('push', [{ body: 'a' }])).rejects.toThrow(/failed/);
    sqs.on(SendMessageBatchCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
    await expect(queues.send('push', [{ body: 'a' }])).rejects.toThrow();
    await expect(queues.send('merge-x', [{ body: 'a' }])).rejects.toThrow(/no URL/);
  });

  it('changes visibility on the queue of the records ARN, and reads received messages as the port says', async () => {
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({ Successful: [], Failed: [] });
    sqs.on(ReceiveMessageCommand).resolves({
      Messages: [
        {
          Body: 'b',
          ReceiptHandle: 'r',
          Attributes: { MessageGroupId: 'g', MessageDeduplicationId: 'd', ApproximateReceiveCount: '3' },
          MessageAttributes: { redrives: { StringValue: '2', DataType: 'String' } },
        },
      ],
    });
    sqs.on(DeleteMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const queues = new SqsQueues(client, { dlq: 'https://sqs.example/dlq' });

    await queues.changeVisibility('arn:aws:sqs:us-east-1:123456789012:merge-a.fifo', ['h1', 'h2'], 30);
    expect(sqs.commandCalls(ChangeMessageVisibilityBatchCommand)[0].args[0].input).toEqual({
      QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/merge-a.fifo',
      Entries: [
        { Id: '0', ReceiptHandle: 'h1', VisibilityTimeout: 30 },
        { Id: '1', ReceiptHandle: 'h2', VisibilityTimeout: 30 },
      ],
    });

    expect(await queues.receive('dlq', 50, 60)).toEqual([
      { body: 'b', receiptHandle: 'r', groupId: 'g', dedupId: 'd', receiveCount: 3, attributes: { redrives: '2' } },
    ]);
    expect(sqs.commandCalls(ReceiveMessageCommand)[0].args[0].input).toMatchObject({
      QueueUrl: 'https://sqs.example/dlq',
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 60,
    });

    await queues.delete('dlq', ['r']);
    expect(sqs.commandCalls(DeleteMessageBatchCommand)[0].args[0].input).toEqual({
      QueueUrl: 'https://sqs.example/dlq',
      Entries: [{ Id: '0', ReceiptHandle: 'r' }],
    });
  });

  it('turns a queue ARN into its URL', () => {
    expect(queueUrlOfArn('arn:aws-cn:sqs:cn-north-1:123:q')).toBe('https://sqs.cn-north-1.amazonaws.com.cn/123/q');
  });
});
