/**
 * Starts the storage engines once per test run (DynamoDB Local in memory, s3rver on a temporary directory);
 * each integration test file starts its own runtime on them with its own table and bucket.
 */
import type { TestProject } from 'vitest/node';
import { type Engine, startDynamoDbLocal, startS3rver } from '../../lib/local/engines';

let engines: Engine[] = [];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  engines = await Promise.all([startDynamoDbLocal(null), startS3rver(null)]);
  project.provide('dynamodbEndpoint', engines[0].endpoint);
  project.provide('s3Endpoint', engines[1].endpoint);
  return async () => {
    await Promise.all(engines.map((e) => e.stop()));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
  }
}
