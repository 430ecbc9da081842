/**
 * Issue 25 point 3: dependency failures are one error at the port. Each AWS adapter turns its SDK's
 * "did not answer" failures (throttling, 5xx, timeouts, network errors) into the ports' `DependencyFailure`,
 * naming what stands behind the port and keeping the SDK's error as its cause; every other failure (a
 * refused condition, a missing object, a bug) reaches the caller as it was. The SDK clients are real; only
 * their transport is replaced by aws-sdk-client-mock, since no engine throttles or fails on demand.
 */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import { DependencyFailure, isDependencyFailure } from '../../shared/ports/dependency-failure';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { SqsQueues } from '../../shared/store/queue';
import { S3Files } from '../../shared/store/s3-files';
import { secretsManager } from '../../shared/store/secrets-manager';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const ddbMock = mockClient(DynamoDBDocumentClient);
const s3Mock = mockClient(S3Client);
const sqsMock = mockClient(SQSClient);
const smMock = mockClient(SecretsManagerClient);
afterEach(() => {
  ddbMock.reset();
  s3Mock.reset();
  sqsMock.reset();
  smMock.reset();
});
// The unit project shares modules between files (isolate: false): the clients' prototypes go back as they were.
afterAll(() => {
  for (const m of [ddbMock, s3Mock, sqsMock, smMock]) m.restore();
});

const table = () => ({
  ddb: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials })),
  name: 't',
  clock: new ManualClock(Date.UTC(2026, 10, 28)),
});

/** What the SDK throws when DynamoDB throttles a request. */
const throttled = () =>
  Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded'), {
    name: 'ProvisionedThroughputExceededException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
/** What the SDK throws for a 503 without a known error shape. */
const unavailable = () => Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable', $fault: 'server', $metadata: { httpStatusCode: 503 } });
/** What Node throws when the connection is refused. */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });

async function rejectionOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded');
}

describe('dependency failures at the ports', () => {
  it("turns the table's throttling, 5xx and network errors into one DependencyFailure at the market and identity ports", async () => {
    for (const sdkError of [throttled(), unavailable(), refused()]) {
      ddbMock.reset();
      ddbMock.on(GetCommand).rejects(sdkError);
      ddbMock.on(QueryCommand).rejects(sdkError);
      const meta = await rejectionOf(() => dynamoMarket(table()).pages.meta('eu'));
      expect(meta, sdkError.name).toBeInstanceOf(DependencyFailure);
      expect((meta as DependencyFailure).dependency).toBe('table');
      expect((meta as DependencyFailure).cause).toBe(sdkError);
      const profile = await rejectionOf(() => dynamoIdentity(table()).getProfile('u1'));
      expect(profile, sdkError.name).toBeInstanceOf(DependencyFailure);
      expect(isDependencyFailure(profile)).toBe(true);
    }
  });

  it('passes every other failure through unchanged: a refused condition is the adapter’s answer, not an outage', async () => {
    const conditional = new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
    ddbMock.on(GetCommand).rejects(conditional);
    const err = await rejectionOf(() => dynamoMarket(table()).pages.meta('eu'));
    expect(err).toBe(conditional);
    expect(isDependencyFailure(err)).toBe(false);
    const bug = new TypeError('x is undefined');
    ddbMock.on(GetCommand).rejects(bug);
    expect(await rejectionOf(() => dynamoMarket(table()).pages.meta('eu'))).toBe(bug);
  });

  it('answers as before when the dependency answers (the port behind the error translation is the adapter itself)', async () => {
    ddbMock.on(GetCommand).resolves({ Item: { pk: 'MKT#eu', sk: 'META', seq: 7 } });
    ddbMock.on(UpdateCommand).resolves({});
    const meta = await dynamoMarket(table()).pages.meta('eu');
    expect(meta.seq).toBe(7);
    expect(meta.market).toBe('eu');
  });

  it("turns a bucket's 5xx into the files port's DependencyFailure and leaves a missing object an answer", async () => {
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    s3Mock.on(GetObjectCommand).rejects(unavailable());
    const err = await rejectionOf(() => new S3Files(s3, 'b', '').get('snap/v1/eu/latest.json'));
    expect(err).toBeInstanceOf(DependencyFailure);
    expect((err as DependencyFailure).dependency).toBe('bucket');
    s3Mock.reset();
    s3Mock
      .on(GetObjectCommand)
      .rejects(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } }));
    expect(await new S3Files(s3, 'b', '').get('snap/v1/eu/latest.json')).toBeNull();
  });

  it("turns a queue's throttling into the queues port's DependencyFailure", async () => {
    sqsMock.on(SendMessageBatchCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }));
    const queues = new SqsQueues(new SQSClient({ region: 'us-east-1', credentials }), { push: 'https://sqs.example/push' });
    const err = await rejectionOf(() => queues.send('push', [{ body: 'm' }]));
    expect(err).toBeInstanceOf(DependencyFailure);
    expect((err as DependencyFailure).dependency).toBe('queue');
  });

  it("turns the secret store's 5xx into the secrets port's DependencyFailure", async () => {
    smMock
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('internal'), { name: 'InternalServiceError', $fault: 'server', $metadata: { httpStatusCode: 500 } }));
    const err = await rejectionOf(() => secretsManager().read('arn:aws:secretsmanager:us-east-1:1:secret:x'));
    expect(err).toBeInstanceOf(DependencyFailure);
    expect((err as DependencyFailure).dependency).toBe('secrets');
  });

  it('finds a DependencyFailure inside an aggregate or as a cause, and nothing in other errors', () => {
    const failure = new DependencyFailure('table', throttled());
    expect(isDependencyFailure(new AggregateError([new Error('x'), failure]))).toBe(true);
    expect(isDependencyFailure(new Error('while merging', { cause: failure }))).toBe(true);
    expect(isDependencyFailure(throttled())).toBe(false);
    expect(isDependencyFailure(new Error('x'))).toBe(false);
  });
});
