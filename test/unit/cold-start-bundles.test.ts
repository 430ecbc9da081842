/**
 * Issue 27 point 4: every function's cold init ≤ 60 ms. Most of an init is V8 compiling the bundle, so what a
 * function's first request does not need stays out of it: the functions that parse nothing but their queue
 * message and the configuration (merge, redrive, push, and the stream and schedule consumers) use zod/mini,
 * never zod's classic API (a third of the merge's bundle before this).
 */

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../lib/constructs/bundling';
import { LiveQuery } from '../../shared/api/environment.schemas';
import { MARKETS, parseMarket } from '../../shared/domain/market';
import { type FunctionName, functionSpec } from '../../shared/topology';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const LEAN: readonly FunctionName[] = ['merge', 'redrive', 'push', 'fanout', 'seal', 'retention', 'ws-connect', 'ws-message', 'ws-disconnect', 'live-sweep'];

describe('cold-start bundles', () => {
  it.each(LEAN)('%s bundles no part of zod’s classic API', async (name) => {
    const spec = functionSpec(name);
    const result = await build({
      ...esbuildOptions(join(ROOT, spec.entry), join(ROOT, 'node_modules/.cache/bundle-test-cold', name, 'index.mjs')),
      metafile: true,
      write: false,
    });
    const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint)!;
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
