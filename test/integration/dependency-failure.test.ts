import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isDependencyFailure } from '../../shared/store/dependency-failure';

/** A server that answers every request as `answer` says (status, headers, body), or never when `hang`. */
function fakeService(answer: { status: number; headers?: Record<string, string>; body?: string; hang?: boolean }): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    if (answer.hang) return;
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body ?? '');
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const dynamo = (endpoint: string, requestTimeout?: number) =>
  new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials,
    maxAttempts: 1,
    ...(requestTimeout ? { requestHandler: new NodeHttpHandler({ requestTimeout, throwOnRequestTimeout: true }) } : {}),
  });
const s3 = (endpoint: string) =>
  new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, maxAttempts: 1 });

/** The error a call rejects with (fails the test when it resolves). */
async function errorOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded');
}

const getItem = new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } });
const getObject = new GetObjectCommand({ Bucket: 'b', Key: 'k' });

describe('dependency failures (one classification for merges and HTTP)', () => {
  const servers: Server[] = [];
  const serve = async (answer: Parameters<typeof fakeService>[0]) => {
    const s = await fakeService(answer);
    servers.push(s.server);
    return s.url;
  };
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it('counts DynamoDB throttling, 500 and a bare 503 as dependency failures', async () => {
    const throttled = await serve({
      status: 400,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'ProvisionedThroughputExceededException' },
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'rate exceeded' }),
    });
    const e1 = await errorOf(dynamo(throttled).send(getItem));
    expect((e1 as Error).name).toBe('ProvisionedThroughputExceededException');
    expect(isDependencyFailure(e1)).toBe(true);

    const internal = await serve({
      status: 500,
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'internal' }),
    });
    const e2 = await errorOf(dynamo(internal).send(getItem));
    expect((e2 as Error).name).toBe('InternalServerError');
    expect(isDependencyFailure(e2)).toBe(true);

    const bare = await serve({ status: 503 });
    expect(isDependencyFailure(await errorOf(dynamo(bare).send(getItem)))).toBe(true);
  });

  it('counts S3 SlowDown and InternalError answers as dependency failures', async () => {
    const xml = (code: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>m</Message></Error>`;
    const slow = await serve({ status: 503, headers: { 'content-type': 'application/xml' }, body: xml('SlowDown') });
    const e1 = await errorOf(s3(slow).send(getObject));
    expect((e1 as Error).name).toBe('SlowDown');
    expect(isDependencyFailure(e1)).toBe(true);
    const internal = await serve({ status: 500, headers: { 'content-type': 'application/xml' }, body: xml('InternalError') });
    expect(isDependencyFailure(await errorOf(s3(internal).send(getObject)))).toBe(true);
  });

  it('counts refused connections and request timeouts as dependency failures', async () => {
    const closed = await fakeService({ status: 200 });
    await new Promise((r) => closed.server.close(r));
    const refused = await errorOf(dynamo(closed.url).send(getItem));
    expect(isDependencyFailure(refused)).toBe(true);
    const hanging = await serve({ status: 200, hang: true });
    const timedOut = await errorOf(dynamo(hanging, 100).send(getItem));
    expect((timedOut as Error).name).toBe('TimeoutError');
    expect(isDependencyFailure(timedOut)).toBe(true);
  });

  it('counts a wrapped dependency failure, and the local runtime faults', () => {
    const throttle = Object.assign(new Error('slow'), { name: 'ThrottlingException', $fault: 'client' });
    expect(isDependencyFailure(new Error('merge failed', { cause: throttle }))).toBe(true);
    expect(isDependencyFailure(Object.assign(new Error('storage fault'), { name: 'ServiceUnavailable', $fault: 'server' }))).toBe(true);
  });

  describe('against the real emulators', () => {
    const ddb = () => dynamo(inject('dynamodbEndpoint'));
    const table = `dep-${Date.now()}`;
    const bucket = `dep-${Date.now()}`;

    beforeAll(async () => {
      await ddb().send(
        new CreateTableCommand({
          TableName: table,
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await s3(inject('s3Endpoint')).send(new CreateBucketCommand({ Bucket: bucket }));
    });

    it('does not count a failed condition, a missing table or a missing object', async () => {
      const put = () => ddb().send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'x' } }, ConditionExpression: 'attribute_not_exists(pk)' }));
      await put();
      const condition = await errorOf(put());
      expect((condition as Error).name).toBe('ConditionalCheckFailedException');
      expect(isDependencyFailure(condition)).toBe(false);
      const noTable = await errorOf(ddb().send(new GetItemCommand({ TableName: `${table}-missing`, Key: { pk: { S: 'a' } } })));
      expect((noTable as Error).name).toBe('ResourceNotFoundException');
      expect(isDependencyFailure(noTable)).toBe(false);
      const noKey = await errorOf(s3(inject('s3Endpoint')).send(new GetObjectCommand({ Bucket: bucket, Key: 'missing' })));
      expect((noKey as Error).name).toBe('NoSuchKey');
      expect(isDependencyFailure(noKey)).toBe(false);
    });
  });

  it('does not count failures of the data itself', async () => {
    expect(isDependencyFailure(await errorOf(promisify(gunzip)(Buffer.from([0x1f, 0x8b, 1, 2, 3]))))).toBe(false);
    expect(isDependencyFailure(await errorOf(Promise.resolve().then(() => JSON.parse('{nope'))))).toBe(false);
    expect(isDependencyFailure(new RangeError('not an unsigned integer'))).toBe(false);
    expect(isDependencyFailure(null)).toBe(false);
    expect(isDependencyFailure('boom')).toBe(false);
  });
});
