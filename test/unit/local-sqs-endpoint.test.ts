import { request } from 'node:http';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsEndpoint, startSqsEndpoint } from '../../lib/local/aws-edge/sqs-endpoint';
import { LocalQueues } from '../../lib/local/background/queues';
import { ManualClock } from '../../shared/clock';
import type { QueueMessage, QueuePort } from '../../shared/ports/queues';
import { SqsQueues } from '../../shared/store/queue';

/**
 * Issue 23, point 8: the local SQS endpoint (the `--bundles` sandboxes' queues) takes only what the runtime's
 * own functions send: its own loopback `Host`, and a SigV4 signature made with the secret the runtime issued
 * to the function the access key names. Before, any request naming a function's access key was that function.
 */
describe('the local SQS endpoint: its own Host and the function’s own signature only', () => {
  const SECRET = 'the-secret-the-runtime-issued-to-upload';
  const sent: Array<{ queue: string; messages: QueueMessage[] }> = [];
  const queues: QueuePort = {
    send: async (queue, messages) => void sent.push({ queue, messages }),
    changeVisibility: async () => undefined,
    receive: async () => [],
    delete: async () => undefined,
  };
  let endpoint: SqsEndpoint;
  let port: string;

  beforeAll(async () => {
    endpoint = await startSqsEndpoint(
      queues,
      (name) => name === 'merge',
      '127.0.0.1',
      (fn) => (fn === 'upload' ? SECRET : undefined),
    );
    port = new URL(endpoint.url).port;
  });
  afterAll(() => endpoint?.close());

  /** A batch of one message to the merge queue, signed as `accessKeyId` with `secret`, sent with `host` when given. */
  const send = async (accessKeyId: string, secret: string, host?: string) => {
    const client = new SQSClient({
      endpoint: endpoint.url,
      region: 'us-east-1',
      credentials: { accessKeyId, secretAccessKey: secret, sessionToken: 'local' },
      maxAttempts: 1,
    });
    if (host)
      client.middlewareStack.add(
        (next) => async (args) => {
          (args.request as { headers: Record<string, string> }).headers.host = host;
          return next(args);
        },
        { step: 'build', name: 'foreignHost' },
      );
    try {
      const out = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: `${endpoint.url}/000000000000/merge.fifo`,
          Entries: [{ Id: '1', MessageBody: '{"market":"m"}', MessageGroupId: 'm', MessageDeduplicationId: `d${sent.length}` }],
        }),
      );
      return { ok: true as const, successful: out.Successful?.length ?? 0 };
    } catch (err) {
      return { ok: false as const, name: (err as Error).name, status: (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode };
    } finally {
      client.destroy();
    }
  };

  it('takes a batch signed with the secret issued to the function its access key names', async () => {
    const before = sent.length;
    expect(await send('upload', SECRET)).toEqual({ ok: true, successful: 1 });
    expect(sent.length).toBe(before + 1);
    expect(sent.at(-1)?.queue).toBe('merge');
  });

  it('refuses a function’s access key signed with another secret (403 SignatureDoesNotMatch), and sends nothing', async () => {
    const before = sent.length;
    for (const secret of ['local', 'S3RVER', `${SECRET}x`])
      expect(await send('upload', secret)).toEqual({ ok: false, name: 'SignatureDoesNotMatch', status: 403 });
    expect(sent.length).toBe(before);
  });

  it('refuses an access key it never issued (403 InvalidClientTokenId), a function’s included', async () => {
    const before = sent.length;
    for (const key of ['merge', 'AKIAEXAMPLE', 'local']) expect(await send(key, SECRET)).toEqual({ ok: false, name: 'InvalidClientTokenId', status: 403 });
    expect(sent.length).toBe(before);
  });

  it('refuses another Host, even rightly signed (a page whose name was rebound to 127.0.0.1): 403', async () => {
    const before = sent.length;
    for (const host of [`evil.example.test:${port}`, `127.0.0.1:${Number(port) + 1}`])
      expect(await send('upload', SECRET, host)).toEqual({ ok: false, name: 'AccessDenied', status: 403 });
    expect(await send('upload', SECRET, `localhost:${port}`)).toEqual({ ok: true, successful: 1 });
    expect(sent.length).toBe(before + 1);
  });

  it('refuses what a page could send: no signature at all, or a made-up one naming the function', async () => {
    const before = sent.length;
    const body = JSON.stringify({ QueueUrl: `${endpoint.url}/000000000000/merge.fifo`, Entries: [{ Id: '1', MessageBody: 'x', MessageGroupId: 'm' }] });
    for (const authorization of [
      undefined,
      `AWS4-HMAC-SHA256 Credential=upload/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
    ]) {
      const status = await new Promise<number>((resolve, reject) => {
        const headers: Record<string, string> = {
          'content-type': 'text/plain',
          'x-amz-target': 'AmazonSQS.SendMessageBatch',
          'x-amz-date': '20260101T000000Z',
        };
        if (authorization) headers.authorization = authorization;
        const req = request(`${endpoint.url}/`, { method: 'POST', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(status).toBe(403);
    }
    expect(sent.length).toBe(before);
  });
});

/**
 * Issue 26 point 5: the local SQS endpoint answers a FIFO message without a deduplication id as SQS answers
 * it for the stack's queues (no content-based deduplication): a failed entry, the sender's fault, while the
 * batch's other entries are sent; the service's SQS adapter then fails the send.
 */
describe('the local SQS endpoint: a FIFO message without a deduplication id fails as on SQS', () => {
  const SECRET = 'the-secret-the-runtime-issued-to-upload';
  const clock = new ManualClock(Date.UTC(2026, 10, 2));
  const local = new LocalQueues([], clock, () => async () => undefined, [{ name: 'merge', fifo: true }]);
  let endpoint: SqsEndpoint;
  let client: SQSClient;

  beforeAll(async () => {
    endpoint = await startSqsEndpoint(
      local,
      (name) => name === 'merge',
      '127.0.0.1',
      (fn) => (fn === 'upload' ? SECRET : undefined),
    );
    client = new SQSClient({
      endpoint: endpoint.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'upload', secretAccessKey: SECRET, sessionToken: 'local' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await endpoint?.close();
  });

  it('reports the entry as failed (InvalidParameterValue, sender’s fault) and sends the others', async () => {
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: `${endpoint.url}/000000000000/merge.fifo`,
        Entries: [
          { Id: 'with', MessageBody: 'same body', MessageGroupId: 'm', MessageDeduplicationId: 'u1' },
          { Id: 'without', MessageBody: 'same body', MessageGroupId: 'm' },
          { Id: 'no-group', MessageBody: 'x', MessageDeduplicationId: 'u2' },
        ],
      }),
    );
    expect(out.Successful?.map((e) => e.Id)).toEqual(['with']);
    expect(out.Failed?.map((e) => [e.Id, e.Code, e.SenderFault])).toEqual([
      ['without', 'InvalidParameterValue', true],
      ['no-group', 'MissingParameter', true],
    ]);
    const held = await local.receive('merge', 10, 60);
    expect(held.map((m) => [m.body, m.dedupId])).toEqual([['same body', 'u1']]);
    await local.delete(
      'merge',
      held.map((m) => m.receiptHandle),
    );
  });

  it('makes the service’s SQS adapter fail the send, so the producer learns it (not first in AWS)', async () => {
    const queues = new SqsQueues(client, { merge: `${endpoint.url}/000000000000/merge.fifo` });
    await expect(queues.send('merge', [{ body: '{"market":"m"}', groupId: 'm' }])).rejects.toThrow(/1 messages failed/);
    await queues.send('merge', [{ body: '{"market":"m"}', groupId: 'm', dedupId: 'u3' }]);
    expect((await local.receive('merge', 10, 60)).map((m) => m.dedupId)).toEqual(['u3']);
  });
});
