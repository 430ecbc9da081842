/**
 * Issue 27 point 4 (cold init): what synth deploys for a function is its own esbuild build, split into the
 * entry Lambda imports (`index.handler` of `index.mjs`) and the chunks only a dynamic `import()` reads. This is the
 * one infra test that bundles (the others skip it): two functions of the manifest, each must get its own code
 * (CDK reuses a bundle whose options look alike, so a shared asset would run one function's code for both).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function';
import { STAGES } from '../../lib/stages';
import { functionSpec } from '../../shared/topology';

describe('function code as synth bundles it', () => {
  it('gives each function its own split bundle: index.mjs with index.handler, and its chunks', () => {
    const app = new App();
    const stack = new Stack(app, 'Bundles', { env: { account: '111111111111', region: 'us-east-1' } });
    const names = ['ws-disconnect', 'live-sweep'] as const;
    for (const name of names) new ServiceFunction(stack, name, { spec: functionSpec(name), stage: STAGES.dev, environment: {} });
    const assembly = app.synth();
    const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(names.length);
    const keys = functions.map((f) => String(f.Properties.Code.S3Key));
    expect(new Set(keys).size).toBe(names.length);
    for (const f of functions) expect(f.Properties.Handler).toBe('index.handler');
    const assets = keys.map((key) => join(assembly.directory, `asset.${key.replace(/\.zip$/, '')}`));
    const entries = assets.map((dir) => {
      expect(existsSync(join(dir, 'index.mjs'))).toBe(true);
      expect(readdirSync(join(dir, 'chunks')).some((f) => f.endsWith('.mjs'))).toBe(true);
      return readFileSync(join(dir, 'index.mjs'), 'utf8');
    });
    expect(entries[0]).not.toBe(entries[1]);
  }, 300_000);
});
