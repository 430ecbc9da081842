/**
 * The IAM check of a test run: every AWS call the handlers made through local runtimes (recorded per worker
 * into the run's directory, lib/local/iam/calls.ts) is evaluated against its function's statements in the
 * synthesized dev template. Synthesized here for the local account and region, so the ARNs' literal parts
 * are the ones local calls carry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LOCAL_ACCOUNT, LOCAL_REGION, type LocalNames, type RecordedCall } from '../../lib/local/iam/calls';
import { checkCalls, describeViolation, type Violation } from '../../lib/local/iam/check';
import type { TemplateJson } from '../../lib/local/iam/resolve';
import { MarketDataStack } from '../../lib/stack';
import { stackName, stageConfig } from '../../lib/stages';

let template: TemplateJson | undefined;

/** The dev stage's template (the stage the local runtime plays), bundling skipped as in test/infra/synth.ts. */
export function localTemplate(): TemplateJson {
  if (!template) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
    const config = stageConfig('dev');
    const stack = new MarketDataStack(app, stackName(config.stage), { config, env: { account: LOCAL_ACCOUNT, region: LOCAL_REGION } });
    template = Template.fromStack(stack).toJSON() as TemplateJson;
  }
  return template;
}

/** Every call recorded in a run's directory (one JSON object a line, one file a worker process). */
export function readCalls(dir: string): RecordedCall[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as RecordedCall),
    );
}

export interface RunCheck {
  calls: number;
  functions: string[];
  /** Distinct calls by service (`dynamodb`, `s3`, `sqs`, `execute-api`). */
  services: Record<string, number>;
  violations: Violation[];
}

/** Checks a run's recorded calls; throws when the policy would deny one, naming each. */
export function checkRun(dir: string): RunCheck {
  const calls = readCalls(dir);
  if (calls.length === 0) return { calls: 0, functions: [], services: {}, violations: [] };
  const violations = checkCalls(localTemplate(), calls);
  const functions = [...new Set(calls.map((c) => c.fn))].sort();
  const services: Record<string, number> = {};
  for (const c of calls) services[c.action.split(':')[0]] = (services[c.action.split(':')[0]] ?? 0) + 1;
  return { calls: calls.length, functions, services, violations };
}

export const reportOf = (check: RunCheck): string =>
  `IAM check: ${check.violations.length} of the handlers' AWS calls would be denied in AWS by the synthesized policies:\n${check.violations.map((v) => `  - ${describeViolation(v)}`).join('\n')}`;

export type { LocalNames };
