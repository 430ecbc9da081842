/**
 * Issue 27 point 4: every function's cold init ≤ 60 ms. Most of an init is V8 compiling the bundle, so what a
 * function's first request does not need stays out of it: the functions that parse nothing but their queue
 * message and the configuration (merge, redrive, push, and the stream and schedule consumers) use zod/mini,
 * never zod's classic API (a third of the merge's bundle before this).
 */

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { LiveQuery } from '../../shared/api/environment.schemas';
import { MARKETS, parseMarket } from '../../shared/domain/market';
import { type FunctionName, functionSpec } from '../../shared/topology';
import { bundleMetafiles } from '../support/function-bundles';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const LEAN: readonly FunctionName[] = ['merge', 'redrive', 'push', 'fanout', 'seal', 'retention', 'ws-connect', 'ws-message', 'ws-disconnect', 'live-sweep'];

describe('cold-start bundles', () => {
  let metafiles: Map<FunctionName, Metafile>;
  // The lean functions' bundles from one build (test/support/function-bundles.ts), each as its build alone gives it.
  beforeAll(async () => {
    metafiles = await bundleMetafiles(LEAN.map(functionSpec), join(ROOT, 'node_modules/.cache/bundle-test-cold'));
  });

  it.each(LEAN)('%s bundles no part of zod’s classic API', (name) => {
    const output = Object.values(metafiles.get(name)!.outputs).find((o) => o.entryPoint)!;
    const zod = Object.entries(output.inputs).filter(([p, i]) => p.includes('node_modules/zod/') && i.bytesInOutput > 0);
    // zod/mini is there (the configuration): an empty list would mean the detection broke.
    expect(zod.some(([p]) => p.includes('/v4/mini/'))).toBe(true);
    expect(zod.filter(([p]) => p.includes('/v4/classic/')).map(([p]) => p)).toEqual([]);
  });
});

describe("the socket upgrade's market rule without zod", () => {
  it('accepts and refuses exactly what GET /api/v1/live’s LiveQuery does, with 400 bad_market', () => {
    for (const market of [...MARKETS, undefined, '', 'x', 'forever.normal.gnome.us', 'forever.rp.horde.eu', 7, ['forever.rp.horde.us']]) {
      const schema = LiveQuery.safeParse({ market });
      let code: string | null = null;
      try {
        expect(parseMarket(market)).toBe(market);
      } catch (err) {
        code = (err as { code?: string }).code ?? 'thrown';
      }
      expect(code === null).toBe(schema.success);
      if (code !== null) expect(code).toBe('bad_market');
    }
  });
});
