/**
 * The engines tier's global setup: starts the storage engines once per test run (DynamoDB Local in memory,
 * s3rver on a temporary directory) beside what every runtime shares (test/support/runtime-setup.ts: the site
 * build, the template, the IAM check of the recorded calls); each test file starts its own runtime on them
 * with its own table and bucket.
 */
import type { TestProject } from 'vitest/node';
import { type Engine, startDynamoDbLocal, startS3rver } from '../../lib/local/engines/engines';
import { prepareRuntimes } from './runtime-setup';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let engines: Engine[] = [];
  const started = Promise.all([startDynamoDbLocal(null), startS3rver(null)]).then((e) => {
    engines = e;
  });
  const check = await prepareRuntimes(project, started);
  project.provide('dynamodbEndpoint', engines[0].endpoint);
  project.provide('s3Endpoint', engines[1].endpoint);
  return async () => {
    await Promise.all(engines.map((e) => e.stop()));
    await check();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
  }
}
