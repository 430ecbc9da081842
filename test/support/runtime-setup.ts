/**
 * What every local runtime of a test run shares, whatever its backend (test/support/global-setup.ts adds the
 * engines): the website's build, the dev template synthesized once, and a directory where the runtimes record
 * their handlers' AWS calls, which the teardown checks against the synthesized IAM policies and fails the run
 * on a call AWS would deny (test/support/iam-check.ts). As a global setup on its own it is the service tier's
 * (issue 25 point 5: the memory backend needs no engine).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureSiteBuild } from '../../scripts/site-build.mjs';

/** Provides `iamCallsDir` and `localTemplateFile`; `alongside` runs while the template is synthesized. */
export async function prepareRuntimes(project: TestProject, alongside: Promise<unknown> = Promise.resolve()): Promise<() => Promise<void>> {
  // Every runtime serves the website's build (lib/local/gateways/site-host.ts): made once here, before any starts.
  ensureSiteBuild({ quiet: true });
  const callsDir = mkdtempSync(join(tmpdir(), 'iam-calls-'));
  const templateDir = mkdtempSync(join(tmpdir(), 'local-template-'));
  const templateFile = join(templateDir, 'dev.template.json');
  // Synthesized once for the run: each runtime would otherwise load aws-cdk-lib and synthesize it again (~3 s)
  // for the local gateway's invoke permissions.
  const synthesized = import('../../lib/local/iam/template').then(({ localTemplate }) => writeFileSync(templateFile, JSON.stringify(localTemplate())));
  await Promise.all([synthesized, alongside]);
  project.provide('iamCallsDir', callsDir);
  project.provide('localTemplateFile', templateFile);
  return async () => {
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

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return prepareRuntimes(project);
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where local runtimes append their handlers' AWS calls (one file a worker). */
    iamCallsDir: string;
    /** The dev template synthesized once for the run (lib/local/iam/template.ts), for the runtimes' gateways. */
    localTemplateFile: string;
  }
}
