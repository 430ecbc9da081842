/**
 * One local runtime for the alerts e2e tests: DynamoDB Local and s3rver (lib/local/engines.ts), the runtime in
 * memory with a manual clock (so the test moves time past the push window), the website built first. Its base
 * URL reaches the tests as `E2E_BASE`; the teardown stops everything this started.
 */
import { randomBytes } from 'node:crypto';
import { startDynamoDbLocal, startS3rver } from '../../../lib/local/engines';
import { startRuntime } from '../../../lib/local/runtime';
import { ensureSiteBuild } from '../../../scripts/site-build.mjs';

/** 2026-11-02T10:00:00Z (a Monday), far from any boundary. */
export const E2E_START = Date.UTC(2026, 10, 2, 10, 0, 0);

export default async function setup(): Promise<() => Promise<void>> {
  ensureSiteBuild({ quiet: true });
  const engines = await Promise.all([startDynamoDbLocal(null), startS3rver(null)]);
  const runtime = await startRuntime({
    port: 0,
    dataDir: ':memory:',
    clock: 'manual',
    clockStart: E2E_START,
    dynamodbEndpoint: engines[0].endpoint,
    s3Endpoint: engines[1].endpoint,
    name: randomBytes(6).toString('hex'),
    log: false,
  });
  process.env.E2E_BASE = runtime.base;
  return async () => {
    await runtime.close();
    await Promise.all(engines.map((e) => e.stop()));
  };
}
