/**
 * Issue 12 point 1: each function's deployed bundle (built as synth builds it) imports only the SDK clients its
 * manifest access names, and an adapter module that imports an SDK client is bundled only where its client is.
 */

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { codeOutputs, esbuildOptions } from '../../lib/constructs/bundling';
import { FUNCTIONS } from '../../shared/topology';
import { allowedSdk, sdkPackages } from '../bench/cold';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Adapter modules and the SDK client each one imports. */
const ADAPTERS: Record<string, string> = {
  'shared/store/s3-files.ts': '@aws-sdk/client-s3',
  'shared/store/api-gateway-sockets.ts': '@aws-sdk/client-apigatewaymanagementapi',
  'shared/store/queue.ts': '@aws-sdk/client-sqs',
  'shared/store/secrets-manager.ts': '@aws-sdk/client-secrets-manager',
};

describe('function bundles', () => {
  it.each(FUNCTIONS.map((f) => [f.name, f] as const))('%s imports only the SDK clients its access names', async (_name, spec) => {
    const result = await build({
      ...esbuildOptions(join(ROOT, spec.entry), join(ROOT, 'node_modules/.cache/bundle-test', spec.name)),
      metafile: true,
      write: false,
    });
    const sdk = sdkPackages(result.metafile);
    const allowed = allowedSdk(spec);
    // Every function has the table; an empty list here would mean the detection broke, not that all is well.
    expect(sdk.static).toContain('@aws-sdk/client-dynamodb');
    expect([...sdk.static, ...sdk.dynamic].filter((p) => !allowed.includes(p))).toEqual([]);
    // The entry and every chunk: an adapter split off behind a dynamic import is deployed all the same.
    const adapters = codeOutputs(result.metafile)
      .flatMap(([, output]) => Object.entries(output.inputs))
      .filter(([p, i]) => p in ADAPTERS && i.bytesInOutput > 0)
      .map(([p]) => p);
    expect(adapters.filter((p) => !allowed.includes(ADAPTERS[p]))).toEqual([]);
  });
});
