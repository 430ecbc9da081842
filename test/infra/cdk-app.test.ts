/**
 * A CDK app as `cdk init` would make it today (issue 26 point 4): cdk.json holds exactly the feature flags
 * aws-cdk-lib recommends, and production deploys only to its pinned account (the app, run as the CLI runs it,
 * refuses production without one and pins the stack's environment with one).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { appContext } from '../../lib/cdk-context';
import { STAGES, stackEnvironment, stageConfig } from '../../lib/stages';
import { runChild } from '../support/run-child';

const ROOT = join(import.meta.dirname, '../..');
const ACCOUNT = '123456789012';

/** Runs bin/app.ts as `cdk synth` does (context in CDK_CONTEXT_JSON, output to CDK_OUTDIR), without bundling. */
async function runApp(context: Record<string, unknown>): Promise<{
  status: number | null;
  stderr: string;
  manifest?: { artifacts: Record<string, { environment?: string }> };
}> {
  const out = mkdtempSync(join(tmpdir(), 'cdk-app-'));
  try {
    const run = await runChild(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        CDK_CONTEXT_JSON: JSON.stringify(appContext({ 'aws:cdk:bundling-stacks': [], ...context })),
        CDK_OUTDIR: out,
        CDK_DEFAULT_ACCOUNT: '999999999999',
        CDK_DEFAULT_REGION: 'eu-west-1',
      },
    });
    const manifest = run.status === 0 ? JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) : undefined;
    return { status: run.status, stderr: run.stderr, manifest };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('the CDK app (issue 26 point 4)', () => {
  it('sets exactly the feature flags aws-cdk-lib currently recommends (what cdk init writes)', () => {
    const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
    expect(Object.keys(CURRENTLY_RECOMMENDED_FLAGS).length).toBeGreaterThan(80);
    expect(context).toEqual(CURRENTLY_RECOMMENDED_FLAGS);
  });

  it("pins production's account and refuses production without one; other stages take the CLI's", () => {
    expect(() => stackEnvironment(STAGES.production, {})).toThrow(/-c productionAccount=/);
    expect(() => stackEnvironment({ ...STAGES.production, account: '12345' }, {})).toThrow(/12-digit/);
    expect(stackEnvironment({ ...STAGES.production, account: ACCOUNT }, { account: '999999999999', region: 'eu-west-1' })).toEqual({
      account: ACCOUNT,
      region: 'us-east-1',
    });
    expect(stackEnvironment(stageConfig('dev'), { account: '999999999999', region: 'eu-west-1' })).toEqual({ account: '999999999999', region: 'eu-west-1' });
  });

  it('run as the CLI runs it: production without its account does not synthesize, with it the stack is pinned there', async () => {
    const refused = await runApp({ stage: 'production', alarmEmail: 'ops@example.com' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('-c productionAccount=');
    const pinned = await runApp({ stage: 'production', alarmEmail: 'ops@example.com', productionAccount: ACCOUNT });
    expect(pinned.stderr).toBe('');
    expect(pinned.status).toBe(0);
    expect(pinned.manifest?.artifacts['MarketData-production'].environment).toBe(`aws://${ACCOUNT}/us-east-1`);
    // Dev needs no pinned account: the CLI's.
    const dev = await runApp({ stage: 'dev' });
    expect(dev.status).toBe(0);
    expect(dev.manifest?.artifacts['MarketData-dev'].environment).toBe('aws://999999999999/eu-west-1');
  });
});
