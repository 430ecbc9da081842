import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** A function run as in Lambda: the runtime's console prefixes each line with time, request id and level. */
const SCRIPT = `
const prefixed = (orig) => (...a) => orig('2026-11-25T00:00:00.000Z\\treq\\tINFO\\t' + a.join(' '));
console.log = prefixed(console.log); console.error = prefixed(console.error);
const { functionTelemetry, metric } = await import('./shared/telemetry/function-telemetry.ts');
const { jsonLog } = await import('./shared/log.ts');
const middy = (await import('@middy/core')).default;
const t = functionTelemetry('merge');
const h = t.handler(middy().use(t.middlewares()).handler(async () => { jsonLog('info', 'merge', { market: 'm' }); metric('push_sent', 1); }));
await h({}, { functionName: 'merge', awsRequestId: 'r-1', memoryLimitInMB: '512', invokedFunctionArn: 'arn' });
`;

/** Unit (issue 12, point 4): in Lambda the lines are the JSON alone, so CloudWatch reads the EMF metrics. */
describe('telemetry output in Lambda', () => {
  it('writes log and EMF lines straight to stdout, without the Lambda console prefix', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, AWS_LAMBDA_FUNCTION_NAME: 'merge', AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.startsWith('{')).toBe(true);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'info', message: 'merge', service: 'merge', cold_start: true, function_request_id: 'r-1' });
    expect(JSON.parse(lines[1])).toMatchObject({ service: 'merge', push_sent: 1, _aws: { CloudWatchMetrics: [{ Namespace: 'MarketData' }] } });
  });
});
