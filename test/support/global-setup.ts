/**
 * Starts the storage engines once per test run (DynamoDB Local in memory, s3rver on a temporary directory);
 * each integration test file starts its own runtime on them with its own table and bucket. Local runtimes
 * record their handlers' AWS calls into the run's directory; the teardown checks them against the
 * synthesized IAM policies and fails the run on a call AWS would deny (test/support/iam-check.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type Engine, startDynamoDbLocal, startS3rver } from '../../lib/local/engines/engines';
import { ensureSiteBuild } from '../../scripts/site-build.mjs';

let engines: Engine[] = [];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Every runtime serves the website's build (lib/local/gateways/site-host.ts): made once here, before any starts.
  ensureSiteBuild({ quiet: true });
  const callsDir = mkdtempSync(join(tmpdir(), 'iam-calls-'));
  const templateDir = mkdtempSync(join(tmpdir(), 'local-template-'));
  const templateFile = join(templateDir, 'dev.template.json');
  // Synthesized once for the run while the engines start: each runtime would otherwise load aws-cdk-lib and
  // synthesize it again (~3 s) for the local gateway's invoke permissions.
  const synthesized = import('../../lib/local/iam/template').then(({ localTemplate }) => writeFileSync(templateFile, JSON.stringify(localTemplate())));
  engines = await Promise.all([startDynamoDbLocal(null), startS3rver(null)]);
  await synthesized;
  project.provide('dynamodbEndpoint', engines[0].endpoint);
  project.provide('s3Endpoint', engines[1].endpoint);
  project.provide('iamCallsDir', callsDir);
  project.provide('localTemplateFile', templateFile);
  return async () => {
    await Promise.all(engines.map((e) => e.stop()));
    try {
      // Imported here: synthesizing the stack is only needed when some runtime recorded calls.
      const { checkRun, reportOf } = await import('./iam-check');
      const check = checkRun(callsDir);
      if (check.violations.length > 0) {
        process.exitCode = 1;
        throw new Error(reportOf(check));
      }
      if (check.calls > 0) {
        const by = Object.entries(check.services)
          .map(([service, n]) => `${service} ${n}`)
          .join(', ');
        console.log(`IAM check: ${check.calls} distinct AWS calls (${by}) of ${check.functions.length} functions, all allowed by the synthesized policies`);
      }
    } finally {
      rmSync(callsDir, { recursive: true, force: true });
      rmSync(templateDir, { recursive: true, force: true });
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
    /** Where local runtimes append their handlers' AWS calls (one file a worker). */
    iamCallsDir: string;
    /** The dev template synthesized once for the run (lib/local/iam/template.ts), for the runtimes' gateways. */
    localTemplateFile: string;
  }
}
