import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Aspects } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { addAwsSolutionsChecks } from '../../lib/nag-checks';
import { warningStack } from './fixtures/nag-warning-app';

const DDB3 = Match.stringLikeRegexp('AwsSolutions-DDB3');

/** Findings of a stack with one unsuppressed warning-level finding (AwsSolutions-DDB3), under `check`. */
function findings(check: (app: App) => void, suppress = false) {
  const app = new App();
  const stack = warningStack(app, suppress);
  check(app);
  app.synth();
  const annotations = Annotations.fromStack(stack);
  return { errors: annotations.findError('*', DDB3), warnings: annotations.findWarning('*', DDB3) };
}

describe('cdk-nag warnings fail synth (docs/deploying.md)', () => {
  it('is a warning-level rule: cdk-nag alone reports it as a warning, which synth would pass', () => {
    const plain = findings((app) => Aspects.of(app).add(new AwsSolutionsChecks()));
    expect(plain.warnings).toHaveLength(1);
    expect(plain.errors).toEqual([]);
  });

  it('turns the unsuppressed warning into an error on the resource under the checks bin/app.ts applies', () => {
    const { errors } = findings(addAwsSolutionsChecks);
    expect(errors.map((e) => [e.id, String(e.entry.data).split(':')[0]])).toEqual([['/NagWarning/Table/Resource', 'AwsSolutions-DDB3']]);
    expect(findings(addAwsSolutionsChecks, true)).toEqual({ errors: [], warnings: [] });
  });

  it('makes `cdk synth` exit non-zero on it (the real CLI on a fixture app)', { timeout: 180_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'nag-warning-'));
    try {
      const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        const args = ['cdk', 'synth', '--app', 'npx tsx test/infra/fixtures/nag-warning-app.ts', '--quiet', '--no-notices', '-o', out];
        execFile('npx', args, { encoding: 'utf8' }, (err, stdout, stderr) => resolve({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
      });
      expect(run.status).not.toBe(0);
      expect(`${run.stdout}${run.stderr}`).toMatch(/AwsSolutions-DDB3: unsuppressed Warning fails synth/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
