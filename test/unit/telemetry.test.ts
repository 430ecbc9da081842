import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { jsonLog, keepOutOfLogs } from '../../shared/log';
import { functionTelemetry, metric } from '../../shared/telemetry/function-telemetry';
import { METRIC } from '../../shared/telemetry/metric-names';
import { setLogSink } from '../../shared/telemetry/sink';

// What Lambda sets for an on-demand sandbox (Powertools reports cold starts only then); the local LambdaHost sets it too.
process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
// The unit project shares its process between files (isolate: false): no other file runs as a Lambda.
afterAll(() => {
  delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
});

/** A Lambda-like context, as the local runtime's LambdaHost gives one. */
const context = (fn: string, awsRequestId: string): Context =>
  ({
    functionName: fn,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${fn}`,
    memoryLimitInMB: '512',
    awsRequestId,
    getRemainingTimeInMillis: () => 1000,
  }) as unknown as Context;

/** Every line written while `run` runs, parsed. */
async function lines(run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const out: string[] = [];
  const before = setLogSink((line) => out.push(line));
  try {
    await run();
  } finally {
    setLogSink(before);
  }
  return out.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A handler of function `fn` as lambdas/<fn>/handler.ts builds one, whose body runs `body`. */
function handlerOf(fn: string, body: () => Promise<void>) {
  const t = functionTelemetry(fn);
  return t.handler(middy<unknown, void>().use(t.middlewares()).handler(body));
}

/** Unit (issue 12, point 4): Powertools writes the lines and the metrics; nothing leaves unredacted. */
describe('function telemetry', () => {
  afterEach(() => {
    delete process.env.POWERTOOLS_LOGGER_SAMPLE_RATE;
  });

  it('writes JSON lines with level, message, service, cold start and request id; cold only the first time', async () => {
    const h = handlerOf('t-lines', async () => jsonLog('info', 'merge', { market: 'm', at: 1 }));
    const got = await lines(async () => {
      await h({}, context('t-lines', 'req-1'));
      await h({}, context('t-lines', 'req-2'));
    });
    expect(got).toEqual([
      expect.objectContaining({
        level: 'info',
        message: 'merge',
        service: 't-lines',
        cold_start: true,
        function_request_id: 'req-1',
        function_name: 't-lines',
        market: 'm',
        at: 1,
        timestamp: expect.any(String),
      }),
      expect.objectContaining({ level: 'info', message: 'merge', service: 't-lines', cold_start: false, function_request_id: 'req-2' }),
    ]);
  });

  it('names each line with its own invocation when invocations of one function overlap (the local runtime)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const h = handlerOf('t-overlap', async () => {
      jsonLog('info', 'before');
      await gate;
      jsonLog('info', 'after');
    });
    const got = await lines(async () => {
      const a = h({}, context('t-overlap', 'req-a'));
      const b = h({}, context('t-overlap', 'req-b'));
      release();
      await Promise.all([a, b]);
    });
    expect(got.map((l) => [l.message, l.function_request_id, l.cold_start]).sort()).toEqual([
      ['after', 'req-a', true],
      ['after', 'req-b', false],
      ['before', 'req-a', true],
      ['before', 'req-b', false],
    ]);
  });

  it('redacts the fields Powertools adds itself: context values, appended keys, the message', async () => {
    keepOutOfLogs('sk_live_deployment_secret_123');
    const t = functionTelemetry('t-redact');
    const h = t.handler(
      middy<unknown, void>()
        .use(t.middlewares())
        .handler(async () => {
          t.logger.appendKeys({ token: 'opaque-token', note: 'key ak_abcdefghijklmnop' });
          jsonLog('warn', 'saw sk_live_deployment_secret_123', { url: '/live?token=abcdefgh' });
        }),
    );
    const raw: string[] = [];
    const before = setLogSink((line) => raw.push(line));
    try {
      await h({}, context('t-redact', 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl'));
    } finally {
      setLogSink(before);
    }
    expect(raw).toHaveLength(1);
    expect(raw[0]).not.toMatch(/opaque-token|abcdefghijklmnop|sk_live_deployment_secret_123|abcdefgh|eyJhbGci/);
    expect(JSON.parse(raw[0])).toMatchObject({
      level: 'warn',
      message: 'saw [secret]',
      token: '[redacted]',
      note: 'key ak_[redacted]',
      url: '/live?token=[redacted]',
      function_request_id: '[jwt]',
    });
  });

  it('logs debug lines only in the sampled share of invocations (POWERTOOLS_LOGGER_SAMPLE_RATE)', async () => {
    process.env.POWERTOOLS_LOGGER_SAMPLE_RATE = '1';
    const all = handlerOf('t-sampled', async () => jsonLog('debug', 'answer', { status: 200 }));
    process.env.POWERTOOLS_LOGGER_SAMPLE_RATE = '0';
    const none = handlerOf('t-unsampled', async () => jsonLog('debug', 'answer', { status: 200 }));
    const got = await lines(async () => {
      await all({}, context('t-sampled', 'a'));
      await none({}, context('t-unsampled', 'b'));
    });
    expect(got.filter((l) => l.level === 'debug').map((l) => [l.service, l.message])).toEqual([['t-sampled', 'answer']]);
  });

  it('flushes the invocation metrics as EMF at the end, dimension service; market metrics on lines of their own', async () => {
    const h = handlerOf('t-metrics', async () => {
      metric(METRIC.pushSent, 2);
      metric(METRIC.pushFailed, 1);
      metric(METRIC.mergeRowsChanged, 17, { market: 'forever.normal.alliance.us' });
    });
    const got = (await lines(() => h({}, context('t-metrics', 'r')))).filter((l) => '_aws' in l);
    const names = (l: Record<string, unknown>) =>
      (l._aws as { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> })
        .CloudWatchMetrics[0];
    expect(got).toHaveLength(2);
    expect(names(got[0])).toMatchObject({
      Namespace: 'MarketData',
      Dimensions: [['service', 'market']],
      Metrics: [{ Name: 'merge_rows_changed', Unit: 'Count' }],
    });
    expect(got[0]).toMatchObject({ service: 't-metrics', market: 'forever.normal.alliance.us', merge_rows_changed: 17 });
    expect(names(got[1])).toMatchObject({ Namespace: 'MarketData', Dimensions: [['service']] });
    expect(got[1]).toMatchObject({ service: 't-metrics', push_sent: 2, push_failed: 1 });
  });

  it('counts nothing outside an invocation', async () => {
    expect(await lines(async () => metric(METRIC.pushSent, 1))).toEqual([]);
  });
});
