/**
 * Issue 26 point 7: one local AWS edge for both modes. Every function's DynamoDB and S3 call goes through it,
 * signed with the function's own credentials (access key id = its name, a secret made at start), and is held
 * to the function's synthesized IAM policies there: a call outside them is refused as AWS refuses it
 * (DynamoDB: 400 `com.amazon.coral.service#AccessDeniedException`; S3: 403 `<Code>AccessDenied</Code>`), the
 * same for an in-process function and for a deploy bundle running in a sandbox with its environment's credentials.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles } from '../../lib/local/functions/bundles';
import { runAs } from '../../lib/local/functions/lambda';
import { Sandboxes } from '../../lib/local/functions/sandboxes';
import { systemClock } from '../../shared/clock';
import { type FunctionName, functionSpec } from '../../shared/topology';
import { type Local, startLocal } from '../support/local';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

let local: Local;

beforeAll(async () => {
  // In memory: the calls this file makes out of policy on purpose stay out of the run's IAM check.
  local = await startLocal({ callsInMemory: true });
}, 180_000);
afterAll(() => local?.close());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ name: 'none', status: 0, message: '' }),
    (e: { name: string; message: string; $metadata?: { httpStatusCode?: number } }) => ({
      name: e.name,
      status: e.$metadata?.httpStatusCode ?? 0,
      message: e.message,
    }),
  );

describe('the local AWS edge: IAM for in-process functions', () => {
  it("refuses an in-process function's S3 and DynamoDB calls outside its policies with AWS's AccessDenied, and records them", async () => {
    const pages = local.runtime.platform('pages');
    const bucket = local.runtime.bucketName;
    // pages reads books/ nowhere and writes nothing there.
    expect(await failure(runAs('pages', () => pages.s3().send(new PutObjectCommand({ Bucket: bucket, Key: 'books/v1/edge-iam', Body: 'x' }))))).toMatchObject({
      name: 'AccessDenied',
      status: 403,
      message: expect.stringMatching(/pages is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::.*\/books\/v1\/edge-iam/),
    });
    const wsDisconnect = local.runtime.platform('ws-disconnect');
    const table = wsDisconnect.config.tableName;
    expect(
      await failure(runAs('ws-disconnect', () => wsDisconnect.ddb().send(new PutCommand({ TableName: table, Item: { pk: 'EDGE#iam', sk: 'x' } })))),
    ).toMatchObject({
      name: 'AccessDeniedException',
      status: 400,
      message: expect.stringContaining('ws-disconnect is not authorized to perform: dynamodb:PutItem'),
    });
    const calls = local.runtime.recorder!.calls;
    expect(calls.some((c) => c.fn === 'pages' && c.action === 's3:PutObject' && c.resource.endsWith('/books/v1/edge-iam'))).toBe(true);
    expect(calls.some((c) => c.fn === 'ws-disconnect' && c.action === 'dynamodb:PutItem')).toBe(true);
    // Metered by caller and action, refused calls too.
    expect(local.runtime.awsMeter.get('pages')?.get('s3:PutObject')).toBeGreaterThanOrEqual(1);
  });

  it("holds a signed @connections call to the function's policies: the fan-out may manage connections, pages may not", async () => {
    const as = (fn: FunctionName) =>
      new ApiGatewayManagementApiClient({
        region: 'us-east-1',
        endpoint: `${local.base}/local`,
        credentials: local.runtime.sandboxCredentials(fn)!,
        maxAttempts: 1,
      });
    const post = (fn: FunctionName) => failure(as(fn).send(new PostToConnectionCommand({ ConnectionId: 'edge-none', Data: Buffer.from('{}') })));
    expect(await post('pages')).toMatchObject({
      name: 'AccessDeniedException',
      status: 403,
      message: expect.stringContaining('execute-api:ManageConnections'),
    });
    // Allowed: the gateway answers for the (unknown) connection itself.
    expect(await post('fanout')).toMatchObject({ name: 'GoneException', status: 410 });
    const calls = local.runtime.recorder!.calls;
    expect(calls.some((c) => c.fn === 'pages' && c.action === 'execute-api:ManageConnections')).toBe(true);
  });

  it("answers a granted call, and the same call outside any invocation is the operator's (no IAM check)", async () => {
    const upload = local.runtime.platform('upload');
    const bucket = local.runtime.bucketName;
    await runAs('upload', () => upload.s3().send(new PutObjectCommand({ Bucket: bucket, Key: 'books/v1/edge-ok', Body: 'ok' })));
    const read = await local.runtime.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'books/v1/edge-ok' }));
    expect(await read.Body!.transformToString()).toBe('ok');
  });
});

describe('the local AWS edge: who calls', () => {
  const s3 = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) =>
    new S3Client({ region: 'us-east-1', endpoint: local.runtime.awsUrl, forcePathStyle: true, credentials, maxAttempts: 1 });
  const ddb = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) =>
    new DynamoDBClient({ region: 'us-east-1', endpoint: local.runtime.awsUrl, credentials, maxAttempts: 1 });
  const get = (credentials: Parameters<typeof s3>[0]) =>
    failure(s3(credentials).send(new GetObjectCommand({ Bucket: local.runtime.bucketName, Key: 'items/v1/none' })));
  const put = (credentials: Parameters<typeof s3>[0]) =>
    failure(ddb(credentials).send(new PutItemCommand({ TableName: local.runtime.tableName, Item: { pk: { S: 'EDGE#who' }, sk: { S: 'x' } } })));

  it('refuses an access key it never issued and a signature not made with the secret issued to that function', async () => {
    expect(await get({ accessKeyId: 'nobody', secretAccessKey: 'x' })).toMatchObject({ name: 'InvalidAccessKeyId', status: 403 });
    expect(await get({ accessKeyId: 'pages', secretAccessKey: 'S3RVER' })).toMatchObject({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await put({ accessKeyId: 'nobody', secretAccessKey: 'x' })).toMatchObject({ name: 'UnrecognizedClientException', status: 400 });
    expect(await put({ accessKeyId: 'merge', secretAccessKey: 'local' })).toMatchObject({ name: 'InvalidSignatureException', status: 400 });
    // The function's own credentials: a read it is granted reaches S3 (404 for a missing key, not a refusal).
    expect(await get(local.runtime.sandboxCredentials('pages')!)).toMatchObject({ name: 'NoSuchKey', status: 404 });
  });
});

describe('the local AWS edge: IAM for a deploy bundle in its sandbox', () => {
  /** A stand-in bundle (the deploy layout, `@aws-sdk/*` beside it): the SDK's default clients, credentials from the environment. */
  const FIXTURE = `import { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
const s3 = new S3Client({ endpoint: process.env.S3_ENDPOINT, forcePathStyle: true, maxAttempts: 1 });
const ddb = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, maxAttempts: 1 });
const outcome = (p) => p.then(() => ({ ok: true }), (err) => ({ error: err.name, status: err.$metadata?.httpStatusCode, message: err.message }));
export const handler = async (event) => ({
  s3: await outcome(s3.send(new PutObjectCommand({ Bucket: event.bucket, Key: event.key, Body: 'x' }))),
  ddb: await outcome(ddb.send(new PutItemCommand({ TableName: event.table, Item: { pk: { S: 'EDGE#sandbox' }, sk: { S: 'x' } } }))),
});
`;

  it("refuses a sandbox's calls outside its function's policies with AWS's AccessDenied, the caller known by its environment's credentials", async () => {
    const name: FunctionName = 'pages';
    const bundles = await buildBundles(ROOT, [functionSpec(name)]);
    const bundle = bundles.bundles.get(name)!;
    writeFileSync(bundle.file, FIXTURE);
    const credentials = local.runtime.sandboxCredentials(name)!;
    const sandboxes = new Sandboxes({
      bundles,
      // As lib/local/functions/sandbox-environment.ts gives it: the function's name and secret, the edge's endpoints.
      environment: () => ({
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_SESSION_TOKEN: credentials.sessionToken ?? '',
        S3_ENDPOINT: local.runtime.awsUrl,
        DYNAMODB_ENDPOINT: local.runtime.awsUrl,
      }),
      sqsEndpoint: 'http://127.0.0.1:9',
      clock: systemClock,
      log: () => undefined,
    });
    const context = {
      functionName: name,
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn',
      memoryLimitInMB: '512',
      awsRequestId: '1',
      logGroupName: 'g',
      logStreamName: 's',
    };
    try {
      const out = await sandboxes.invoke(
        name,
        { bucket: local.runtime.bucketName, key: 'books/v1/edge-sandbox', table: local.runtime.tableName },
        context,
        Date.now() + 30_000,
      );
      expect(out).toEqual({
        s3: { error: 'AccessDenied', status: 403, message: expect.stringContaining('pages is not authorized to perform: s3:PutObject') },
        ddb: { error: 'AccessDeniedException', status: 400, message: expect.stringContaining('pages is not authorized to perform: dynamodb:PutItem') },
      });
      const calls = local.runtime.recorder!.calls;
      expect(calls.some((c) => c.fn === 'pages' && c.action === 's3:PutObject' && c.resource.endsWith('/books/v1/edge-sandbox'))).toBe(true);
    } finally {
      await sandboxes.close();
      bundles.remove();
    }
  }, 120_000);
});
