/**
 * Issue 13 point 4: the handlers' AWS calls, recorded by the local runtime as IAM sees them, are checked
 * against each function's statements in the synthesized template; a call the policy would deny is reported
 * with function, action and resource. This file's runtime records in memory only, so the calls it forces
 * out of policy stay out of the run's own check (test/support/global-setup.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runAs } from '../../lib/local/functions/lambda';
import { checkCalls, describeViolation } from '../../lib/local/iam/check';
import { type Runtime, startRuntime } from '../../lib/local/runtime';
import { checkRun, localTemplate, reportOf } from '../support/iam-check';
import { DEFAULT_START, localClient } from '../support/local';

let runtime: Runtime;
let local: ReturnType<typeof localClient>;

beforeAll(async () => {
  runtime = await startRuntime({
    port: 0,
    dataDir: ':memory:',
    clock: 'manual',
    clockStart: DEFAULT_START,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    s3Endpoint: inject('s3Endpoint'),
    name: `iam${Date.now().toString(36)}`,
    log: false,
    recordCalls: {},
  });
  local = localClient(runtime.base);
});

afterAll(async () => {
  await runtime?.close();
});

/** Runs a call as `fn` and swallows the local grant check's refusal: the recording is what is looked at. */
const attempt = (fn: Parameters<typeof runAs>[0], call: () => Promise<unknown>) => runAs(fn, call).catch(() => undefined);

describe('IAM check of recorded calls', () => {
  it("records the handlers' calls with function, action and AWS resource ARN, and the policies allow them", async () => {
    const user = await local.user({});
    const token = await local.session(user.id);
    expect((await local.api('GET', '/api/v1/me', { token })).status).toBe(200);
    await local.tick();
    const calls = runtime.recorder!.calls;
    const api = calls.filter((c) => c.fn === 'api');
    expect(api.length).toBeGreaterThan(0);
    expect(api.map((c) => c.action)).toContain('dynamodb:GetItem');
    expect(api[0].resource).toBe(`arn:aws:dynamodb:us-east-1:000000000000:table/${runtime.tableName}`);
    // Calls outside any invocation (the control API creating the user) are the operator's: not recorded.
    expect(calls.every((c) => c.fn !== undefined)).toBe(true);
    expect(checkCalls(localTemplate(), calls).map(describeViolation)).toEqual([]);
  });

  it("reports a handler's out-of-policy calls by function, action and resource: no statement, explicit MKT# deny, prefix, queue", async () => {
    const before = runtime.recorder!.calls.length;
    const { ddb, s3, queues } = runtime.operator;
    const table = runtime.tableName;
    await attempt('pages', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'USER#iam', sk: 'PROFILE' } })));
    await attempt('api', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'MKT#normal-alliance', sk: 'META' } })));
    await attempt('merge', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'MKT#iam-check', sk: 'META' } })));
    await attempt('merge', () => s3.send(new PutObjectCommand({ Bucket: runtime.bucketName, Key: 'books/iam.json', Body: '{}' })));
    await attempt('api', () => queues.send('push', [{ body: '{}' }]));
    const violations = checkCalls(localTemplate(), runtime.recorder!.calls.slice(before)).map(describeViolation);
    const tableArn = `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`;
    expect(violations).toEqual([
      `pages may not dynamodb:PutItem on ${tableArn} {"dynamodb:LeadingKeys":["USER#iam"]} (no statement allows it)`,
      `api may not dynamodb:PutItem on ${tableArn} {"dynamodb:LeadingKeys":["MKT#normal-alliance"]} (explicit deny DenyMarketPageWrites)`,
      `merge may not s3:PutObject on arn:aws:s3:::${runtime.bucketName}/books/iam.json (no statement allows it)`,
      'api may not sqs:SendMessage on arn:aws:sqs:us-east-1:000000000000:push (no statement allows it)',
    ]);
  });

  it("denies a function's calls outside its key families (issue 23 point 5): forged verdicts, a planted hourly answer, a Scan", async () => {
    const before = runtime.recorder!.calls.length;
    const { ddb } = runtime.operator;
    const table = runtime.tableName;
    // What a compromised socket or push function would try.
    await attempt('ws-disconnect', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'APIKEY#forged', sk: 'VERIFY', userId: 'u' } })));
    await attempt('ws-disconnect', () =>
      ddb.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'DEVTOK#guess' } })),
    );
    await attempt('push', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'VIEW#planted', sk: '0' } })));
    await attempt('ws-disconnect', () => ddb.send(new ScanCommand({ TableName: table, Limit: 1 })));
    // Their own families still pass.
    await attempt('ws-disconnect', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'CONN#iam', sk: 'CONN' } })));
    await attempt('push', () => ddb.send(new PutCommand({ TableName: table, Item: { pk: 'PUSHEP#iam', sk: 'OWNER' } })));
    const tableArn = `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`;
    expect(checkCalls(localTemplate(), runtime.recorder!.calls.slice(before)).map(describeViolation)).toEqual([
      `ws-disconnect may not dynamodb:PutItem on ${tableArn} {"dynamodb:LeadingKeys":["APIKEY#forged"]} (no statement allows it)`,
      `ws-disconnect may not dynamodb:Query on ${tableArn} {"dynamodb:LeadingKeys":["DEVTOK#guess"]} (no statement allows it)`,
      `push may not dynamodb:PutItem on ${tableArn} {"dynamodb:LeadingKeys":["VIEW#planted"]} (no statement allows it)`,
      `ws-disconnect may not dynamodb:Scan on ${tableArn} (no statement allows it)`,
    ]);
  });

  it('fails the run from the recorded files when one call is denied, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'iam-calls-test-'));
    try {
      const calls = runtime.recorder!.calls.filter((c) => c.fn === 'api' && c.action === 'dynamodb:GetItem').slice(0, 3);
      const names = calls[0].names;
      const denied = { fn: 'ws-disconnect', action: 's3:GetObject', resource: `arn:aws:s3:::${names.bucket}/books/x.json`, names };
      writeFileSync(join(dir, '1.jsonl'), `${[...calls, denied].map((c) => JSON.stringify(c)).join('\n')}\n`);
      const check = checkRun(dir);
      expect(check.calls).toBe(calls.length + 1);
      expect(check.violations).toHaveLength(1);
      expect(reportOf(check)).toContain(`ws-disconnect may not s3:GetObject on arn:aws:s3:::${names.bucket}/books/x.json (no statement allows it)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
