/**
 * Issue 26 point 1: traces. A function run as Lambda runs it with tracing on sends its handler's subsegment
 * and each merged book's (annotated with the market and upload id, nothing else) to the X-Ray daemon, and
 * each message it sends carries its trace as `AWSTraceHeader`, so the consumer's trace continues it. Outside
 * Lambda, and in Lambda-like sandboxes with `POWERTOOLS_TRACE_ENABLED=false` (the local runtime's bundles),
 * nothing is traced and nothing needs a daemon.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { functionEnvironment } from '../../lib/environment';
import { localDeployment, localSecrets } from '../../lib/local/functions/deployment';
import { SqsQueues } from '../../shared/store/queue';
import { currentTraceHeader, traceHeaderOf, tracingOn } from '../../shared/telemetry/tracing';
import { FUNCTIONS } from '../../shared/topology';

const ROOT = join(import.meta.dirname, '../..');
const ROOT_ID = '1-67891233-abcdef012345678912345678';
const FACADE_PARENT = '53995c3f42cd8ad8';

/**
 * A merge invocation as Lambda runs it: a UDP socket plays the X-Ray daemon, the handler merges "a book"
 * inside the book's subsegment and sends to the push queue (an SQS client that records what it is given).
 */
const SCRIPT = `
import { createSocket } from 'node:dgram';
const daemon = createSocket('udp4');
const datagrams = [];
daemon.on('message', (m) => datagrams.push(m.toString('utf8')));
await new Promise((r) => daemon.bind(0, '127.0.0.1', r));
process.env.AWS_XRAY_DAEMON_ADDRESS = '127.0.0.1:' + daemon.address().port;
const { functionTelemetry } = await import('./shared/telemetry/function-telemetry.ts');
const { inSubsegment, currentTraceHeader } = await import('./shared/telemetry/tracing.ts');
const { SqsQueues } = await import('./shared/store/queue.ts');
const middy = (await import('@middy/core')).default;
const sent = [];
const queues = new SqsQueues({ send: async (c) => (sent.push(c.input), {}) }, { push: 'https://sqs.example/push' }, currentTraceHeader);
const t = functionTelemetry('merge');
const h = t.handler(middy().use(t.middlewares()).handler(async () => {
  await inSubsegment('merge book', { market: 'eu-ah', uploadId: 'up-1' }, () => queues.send('push', [{ body: 'a' }, { body: 'b' }]));
  return { token: 'sess_secret_in_the_answer' };
}));
await h({}, { functionName: 'merge', awsRequestId: 'r-1', memoryLimitInMB: '512', invokedFunctionArn: 'arn' });
await new Promise((r) => setTimeout(r, 300));
daemon.close();
process.stderr.write(JSON.stringify({ datagrams, sent }));
`;

interface Subsegment {
  id: string;
  name: string;
  parent_id?: string;
  trace_id: string;
  annotations?: Record<string, unknown>;
  metadata?: unknown;
}

function runAsLambda(extra: Record<string, string>): { segments: Subsegment[]; sent: Array<{ Entries: Array<Record<string, unknown>> }> } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      AWS_LAMBDA_FUNCTION_NAME: 'merge',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      LAMBDA_TASK_ROOT: '/var/task',
      _HANDLER: 'index.handler',
      _X_AMZN_TRACE_ID: `Root=${ROOT_ID};Parent=${FACADE_PARENT};Sampled=1`,
      POWERTOOLS_SERVICE_NAME: 'merge',
      ...extra,
    },
    encoding: 'utf8',
  });
  const out = JSON.parse(run.stderr.slice(run.stderr.lastIndexOf('{"datagrams"'))) as { datagrams: string[]; sent: never[] };
  const segments = out.datagrams.map((d) => JSON.parse(d.slice(d.indexOf('\n') + 1)) as Subsegment);
  return { segments, sent: out.sent };
}

describe('traces (issue 26 point 1)', () => {
  it('sends the handler and book subsegments, annotated with market and upload id, and carries the trace into SQS', () => {
    const { segments, sent } = runAsLambda({ POWERTOOLS_TRACE_ENABLED: 'true' });
    const handler = segments.find((s) => s.name === '## index.handler');
    const book = segments.find((s) => s.name === 'merge book');
    expect(handler).toMatchObject({ trace_id: ROOT_ID, parent_id: FACADE_PARENT });
    expect(book).toMatchObject({ trace_id: ROOT_ID, parent_id: handler?.id, annotations: { market: 'eu-ah', uploadId: 'up-1' } });
    // The response is never captured: an answer can carry a session or a cap.
    expect(JSON.stringify(segments)).not.toContain('sess_secret_in_the_answer');
    const entries = sent.flatMap((s) => s.Entries);
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e.MessageSystemAttributes).toEqual({ AWSTraceHeader: { DataType: 'String', StringValue: `Root=${ROOT_ID};Parent=${book?.id};Sampled=1` } });
    }
  });

  it('traces nothing and sends no trace header where the stage turns tracing off (the local bundles)', () => {
    const { segments, sent } = runAsLambda({ POWERTOOLS_TRACE_ENABLED: 'false' });
    expect(segments).toEqual([]);
    expect(sent.flatMap((s) => s.Entries).map((e) => e.MessageSystemAttributes)).toEqual([undefined, undefined]);
  });

  it('is off outside Lambda (the in-process local runtime, tests): no header, no daemon needed', async () => {
    expect(process.env.AWS_EXECUTION_ENV).toBeUndefined();
    expect(tracingOn()).toBe(false);
    expect(currentTraceHeader()).toBeUndefined();
    const sent: unknown[] = [];
    const record = async (c: { input: unknown }) => {
      sent.push(c.input);
      return {};
    };
    const client = { send: record } as unknown as SQSClient;
    await new SqsQueues(client, { q: 'https://sqs.example/q' }, currentTraceHeader).send('q', [{ body: 'a' }]);
    expect(sent).toEqual([{ QueueUrl: 'https://sqs.example/q', Entries: [expect.not.objectContaining({ MessageSystemAttributes: expect.anything() })] }]);
  });

  it('tells every function of the local runtime to keep tracing off (its sandboxes look like Lambda)', () => {
    const names = { base: 'http://127.0.0.1:8787', stage: 'local', tableName: 't', bucketName: 'b', workBucketName: 'w', filesPrefix: '' };
    const d = localDeployment(names, localSecrets(null));
    for (const spec of FUNCTIONS) expect(functionEnvironment(spec, d).POWERTOOLS_TRACE_ENABLED).toBe('false');
  });

  it('builds the header from the invocation trace and the current subsegment, and none from a malformed one', () => {
    expect(traceHeaderOf({ Root: ROOT_ID, Parent: FACADE_PARENT, Sampled: '1' }, 'aaaaaaaaaaaaaaaa')).toBe(`Root=${ROOT_ID};Parent=aaaaaaaaaaaaaaaa;Sampled=1`);
    expect(traceHeaderOf({ Root: ROOT_ID, Sampled: '0' }, undefined)).toBe(`Root=${ROOT_ID};Sampled=0`);
    expect(traceHeaderOf({ Root: 'Root=x;Parent=y' }, undefined)).toBeUndefined();
    expect(traceHeaderOf(undefined, 'aaaaaaaaaaaaaaaa')).toBeUndefined();
  });
});
