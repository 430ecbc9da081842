/**
 * Issue 27 point 4: every function's cold init ≤ 60 ms. Most of an init is V8 compiling the bundle, so what a
 * function's first request does not need stays out of it: the functions that parse nothing but their queue
 * message and the configuration (merge, redrive, push, and the stream and schedule consumers) use zod/mini,
 * never zod's classic API (a third of the merge's bundle before this), nor do snapshot and items, which parse the
 * generated item file; no bundle holds zod's locales but English; only the push function holds web-push; and what
 * only a dynamic import reaches is a chunk of its own, which the init does not load. Speed itself is the bench's
 * (`cold.<fn>.init_ms`), never a timed test.
 */

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as zc from 'zod';
import { codeOutputs, esbuildOptions, initOutputs } from '../../lib/constructs/bundling';
import { LiveQuery } from '../../shared/api/environment.schemas';
import { isBuildName, parseGeneratedItemFile } from '../../shared/domain/items';
import { MARKETS, parseMarket } from '../../shared/domain/market';
import { DomainError } from '../../shared/errors';
import { FUNCTIONS, type FunctionName, functionSpec } from '../../shared/topology';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const LEAN: readonly FunctionName[] = [
  'merge',
  'redrive',
  'push',
  'fanout',
  'seal',
  'retention',
  'ws-connect',
  'ws-message',
  'ws-disconnect',
  'live-sweep',
  // They parse only the generated item file (shared/domain/items.ts).
  'snapshot',
  'items',
];

/** A function's synth build (its metafile), once per test file. */
const builds = new Map<FunctionName, Promise<Metafile>>();
function metafileOf(name: FunctionName): Promise<Metafile> {
  if (!builds.has(name)) {
    const out = join(ROOT, 'node_modules/.cache/bundle-test-cold', name);
    builds.set(
      name,
      build({ ...esbuildOptions(join(ROOT, functionSpec(name).entry), out), metafile: true, write: false }).then((r) => r.metafile),
    );
  }
  return builds.get(name)!;
}

/** The source files (by path) whose code is in a function's synth bundle: its entry or any of its chunks. */
async function bundledInputs(name: FunctionName): Promise<string[]> {
  const held = codeOutputs(await metafileOf(name)).flatMap(([, o]) => Object.entries(o.inputs));
  return [...new Set(held.filter(([, i]) => i.bytesInOutput > 0).map(([p]) => p))];
}

/** The source files whose code the function's init loads: its entry and the chunks the entry imports statically. */
async function inputsAtInit(name: FunctionName): Promise<string[]> {
  const metafile = await metafileOf(name);
  const held = initOutputs(metafile).flatMap((path) => Object.entries(metafile.outputs[path].inputs));
  return [...new Set(held.filter(([, i]) => i.bytesInOutput > 0).map(([p]) => p))];
}

describe('cold-start bundles', () => {
  it.each(LEAN)('%s bundles no part of zod’s classic API', async (name) => {
    const zod = (await bundledInputs(name)).filter((p) => p.includes('node_modules/zod/'));
    // zod/mini is there (the configuration): an empty list would mean the detection broke.
    expect(zod.some((p) => p.includes('/v4/mini/'))).toBe(true);
    expect(zod.filter((p) => p.includes('/v4/classic/'))).toEqual([]);
  });

  // zod's messages are English (the spec's); its other locales are ~260 KB that a `{ z }` import keeps in every
  // bundle with a schema (esbuild cannot shake a re-exported namespace object), compiled at each cold start.
  it.each(FUNCTIONS.map((f) => f.name))('%s bundles no zod locale but English', async (name) => {
    const locales = (await bundledInputs(name)).filter((p) => p.includes('node_modules/zod/') && p.includes('/locales/'));
    expect(locales.filter((p) => !p.endsWith('/locales/en.js'))).toEqual([]);
  });

  it('api still bundles the English locale (the detection works)', async () => {
    expect((await bundledInputs('api')).some((p) => p.endsWith('node_modules/zod/v4/locales/en.js'))).toBe(true);
  });

  // web-push and its crypto (bn.js, asn1.js, jws) are CommonJS, evaluated at import wherever they are bundled:
  // only the function that delivers pushes holds them; the merge (alert evaluation) and redrive only queue.
  it.each(FUNCTIONS.map((f) => f.name).filter((n) => n !== 'push'))('%s bundles no web-push', async (name) => {
    expect((await bundledInputs(name)).filter((p) => /node_modules\/(web-push|bn\.js|asn1\.js|jws)\//.test(p))).toEqual([]);
  });

  // What only a dynamic import() reaches is a chunk of its own, read when first imported: the X-Ray SDK (loaded
  // where the stage traces), the SDK's credential providers other than the environment's (their STS/SSO clients),
  // the Secrets Manager client (loaded on the first secret read). In one file V8 compiled them at every init.
  it.each(FUNCTIONS.map((f) => f.name))('%s loads no code at init that only a dynamic import reaches', async (name) => {
    const lazy =
      /node_modules\/(aws-xray-sdk-core|@aws-sdk\/nested-clients|@aws-sdk\/client-secrets-manager|@aws-sdk\/credential-provider-(ini|sso|process|web-identity))\//;
    expect((await inputsAtInit(name)).filter((p) => lazy.test(p))).toEqual([]);
    // They are still deployed: a stage that traces, or reads a secret, imports them.
    expect((await bundledInputs(name)).some((p) => p.includes('node_modules/aws-xray-sdk-core/'))).toBe(true);
  });

  it('push still bundles web-push (the detection works)', async () => {
    expect((await bundledInputs('push')).some((p) => p.includes('node_modules/web-push/'))).toBe(true);
  });
});

describe('the generated item file’s validation on zod/mini', () => {
  // The envelope as the classic API wrote it before: the file's answers (400 bad_request and its message) stay as they were.
  const int = zc.number().int().safe();
  const id = zc.string().regex(/^(0|-?[1-9][0-9]{0,9})$/, 'ids are integers');
  const CLASSIC = zc.object({
    v: zc.literal(1),
    build: zc.string().refine(isBuildName, 'build must be 1..64 characters of A-Z a-z 0-9 . _ - (one path segment)'),
    source: zc.string().max(500),
    suffixes: zc.record(id, zc.string()),
    statNames: zc.record(id, zc.string()),
    bonusLists: zc.record(id, zc.tuple([int, zc.array(zc.tuple([int, int]))])),
    bonusTrees: zc.record(id, zc.array(int)),
    items: zc.record(zc.string(), zc.unknown()),
  });
  const ok = {
    v: 1,
    build: '1.15.7',
    source: 'x',
    suffixes: { '1': 'a' },
    statNames: {},
    bonusLists: { '2': [3, [[1, 2]]] },
    bonusTrees: { '4': [1] },
    items: {},
  };
  const BAD: unknown[] = [
    null,
    [],
    'x',
    {},
    { v: 1 },
    { ...ok, v: 2 },
    { ...ok, v: '1' },
    { ...ok, build: 'a/b' },
    { ...ok, build: 7 },
    { ...ok, source: 'x'.repeat(501) },
    { ...ok, suffixes: { a: 'x' } },
    { ...ok, suffixes: { '1': 2 } },
    { ...ok, statNames: { '01': 'x' } },
    { ...ok, bonusLists: { '2': [1.5, []] } },
    { ...ok, bonusLists: { '2': [2 ** 60, []] } },
    { ...ok, bonusLists: { '2': ['3', []] } },
    { ...ok, bonusLists: { '2': [3] } },
    { ...ok, bonusLists: { '2': [3, [[1, 2, 3]]] } },
    { ...ok, bonusLists: { '2': [Number.POSITIVE_INFINITY, []] } },
    { ...ok, bonusTrees: { '4': [1, -0.5] } },
    { ...ok, bonusTrees: { '4': [-(2 ** 53)] } },
    { ...ok, bonusTrees: { '4': 'x' } },
    { ...ok, items: [] },
  ];

  it.each(BAD.map((b) => [JSON.stringify(b).slice(0, 60), b]))('refuses %s with the classic schema’s first issue', (_, bad) => {
    const expected = CLASSIC.safeParse(bad);
    expect(expected.success).toBe(false);
    const issue = expected.error!.issues[0];
    let thrown: unknown;
    try {
      parseGeneratedItemFile(bad);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).code).toBe('bad_request');
    expect((thrown as Error).message).toBe(`${issue.path.join('.') || 'file'}: ${issue.message}`);
  });

  it('accepts what the classic schema accepts', () => {
    expect(CLASSIC.safeParse(ok).success).toBe(true);
    expect(parseGeneratedItemFile(ok).build).toBe('1.15.7');
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
