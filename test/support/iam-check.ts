/**
 * The IAM check of a test run: every AWS call the handlers made through local runtimes (recorded per worker
 * into the run's directory, lib/local/iam/calls.ts) is evaluated against its function's statements in the
 * synthesized dev template (lib/local/iam/template.ts: synthesized for the local account and region, so the ARNs'
 * literal parts are the ones local calls carry).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalNames, RecordedCall } from '../../lib/local/iam/calls';
import { checkCalls, describeViolation, type Violation } from '../../lib/local/iam/check';
import { localTemplate } from '../../lib/local/iam/template';

/** The dev stage's template (the stage the local runtime plays), synthesized once per process. */
export { localTemplate };

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
