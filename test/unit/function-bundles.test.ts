/**
 * Issue 12 point 1: each function's deployed bundle (built as synth builds it) imports only the SDK clients its
 * manifest access names, and an adapter module that imports an SDK client is bundled only where its client is.
 */

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionName } from '../../shared/topology';
import { allowedSdk, sdkPackages } from '../bench/cold';
import { bundleMetafiles } from '../support/function-bundles';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Adapter modules and the SDK client each one imports. */
const ADAPTERS: Record<string, string> = {
  'shared/store/s3-files.ts': '@aws-sdk/client-s3',
  'shared/store/api-gateway-sockets.ts': '@aws-sdk/client-apigatewaymanagementapi',
  'shared/store/queue.ts': '@aws-sdk/client-sqs',
  'shared/store/secrets-manager.ts': '@aws-sdk/client-secrets-manager',
};

describe('function bundles', () => {
  let metafiles: Map<FunctionName, Metafile>;
  // Every function's bundle from one build (test/support/function-bundles.ts), each as its build alone gives it.
  beforeAll(async () => {
    metafiles = await bundleMetafiles(FUNCTIONS, join(ROOT, 'node_modules/.cache/bundle-test'));
  });

  it.each(FUNCTIONS.map((f) => [f.name, f] as const))('%s imports only the SDK clients its access names', (_name, spec) => {
    const metafile = metafiles.get(spec.name)!;
    const output = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
    const sdk = sdkPackages(metafile);
    const allowed = allowedSdk(spec);
    // Every function has the table; an empty list here would mean the detection broke, not that all is well.
    expect(sdk.static).toContain('@aws-sdk/client-dynamodb');
    expect([...sdk.static, ...sdk.dynamic].filter((p) => !allowed.includes(p))).toEqual([]);
    const adapters = Object.entries(output.inputs)
      .filter(([p, i]) => p in ADAPTERS && i.bytesInOutput > 0)
      .map(([p]) => p);
    expect(adapters.filter((p) => !allowed.includes(ADAPTERS[p]))).toEqual([]);
  });
});
