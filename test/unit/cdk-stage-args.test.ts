/** Issue 26 point 4: `npm run diff|deploy -- --stage X` run the CDK CLI on that stage's stack. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cdkArguments } from '../../scripts/cdk-stage/args';

describe('npm run diff / deploy -- --stage X', () => {
  it('are package scripts', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.diff).toBe('tsx scripts/cdk-stage/cli.ts diff');
    expect(scripts.deploy).toBe('tsx scripts/cdk-stage/cli.ts deploy');
  });

  it("diff names the stage's stack and passes the stage and the rest as given", () => {
    expect(cdkArguments('diff', ['--stage', 'dev'])).toEqual(['diff', 'MarketData-dev', '-c', 'stage=dev']);
    expect(cdkArguments('diff', ['-c', 'alarmEmail=ops@example.com', '--stage=production', '-c', 'productionAccount=123456789012'])).toEqual([
      'diff',
      'MarketData-production',
      '-c',
      'stage=production',
      '-c',
      'alarmEmail=ops@example.com',
      '-c',
      'productionAccount=123456789012',
    ]);
  });

  it('deploy writes the outputs check-secrets reads and asks before widening permissions, unless told otherwise', () => {
    expect(cdkArguments('deploy', ['--stage', 'preview-abc', '-c', 'identity={}'])).toEqual([
      'deploy',
      'MarketData-preview-abc',
      '-c',
      'stage=preview-abc',
      '--outputs-file',
      'cdk-outputs.json',
      '--require-approval',
      'broadening',
      '-c',
      'identity={}',
    ]);
    expect(cdkArguments('deploy', ['--stage', 'dev', '--outputs-file', 'o.json', '--require-approval', 'never'])).toEqual([
      'deploy',
      'MarketData-dev',
      '-c',
      'stage=dev',
      '--outputs-file',
      'o.json',
      '--require-approval',
      'never',
    ]);
  });

  it('refuses a missing, repeated or unknown stage, another command and --hotswap, with the usage', () => {
    for (const [command, argv] of [
      ['diff', []],
      ['diff', ['--stage']],
      ['diff', ['--stage', '-c']],
      ['diff', ['--stage', 'staging']],
      ['diff', ['--stage', 'dev', '--stage', 'production']],
      ['destroy', ['--stage', 'dev']],
      ['deploy', ['--stage', 'dev', '--hotswap']],
    ] as const) {
      expect(() => cdkArguments(command, argv), `${command} ${argv.join(' ')}`).toThrow(/usage: npm run diff\|deploy/);
    }
  });
});
