/**
 * Cold start per function: the esbuild bundle `npm run synth` deploys (lib/constructs/bundling.ts, `@aws-sdk/*`
 * external and resolved from the project's node_modules as the Lambda runtime provides it), its size, the
 * `@aws-sdk/*` packages it imports, and the time a fresh Node process takes to import it (median of runs).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { esbuildOptions } from '../../lib/constructs/bundling';
import { type Deployment, functionEnvironment, type SecretName } from '../../lib/environment';
import { FUNCTIONS, type FunctionName, type FunctionSpec } from '../../shared/topology';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** Inside the project, so the bundles' `@aws-sdk/*` imports resolve from its node_modules. */
const OUT = join(ROOT, 'node_modules', '.cache', 'cold-bundles');

export interface Bundle {
  name: FunctionName;
  file: string;
  bytes: number;
  /** `@aws-sdk/*` packages the bundle imports, statically or dynamically. */
  sdk: { static: string[]; dynamic: string[] };
}

/** Bundles one function as synth does and reads its external imports from esbuild's metafile. */
export async function bundleFunction(spec: FunctionSpec): Promise<Bundle> {
  const file = join(OUT, spec.name, 'index.mjs');
  mkdirSync(join(OUT, spec.name), { recursive: true });
  const result = await build({ ...esbuildOptions(join(ROOT, spec.entry), file), metafile: true });
  const output = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('index.mjs'))![1];
  const sdk = (kind: string) => [...new Set(output.imports.filter((i) => i.external && i.kind === kind && i.path.startsWith('@aws-sdk/')).map((i) => i.path))].sort();
  return { name: spec.name, file, bytes: statSync(file).size, sdk: { static: sdk('import-statement'), dynamic: sdk('dynamic-import') } };
}

/** The SDK clients a function's manifest access allows it to load (the only ones its bundle may import). */
export function allowedSdk(spec: FunctionSpec): string[] {
  const a = spec.access;
  return [
    ...(a.table !== 'none' ? ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb'] : []),
    ...(a.bucket || a.workBucket ? ['@aws-sdk/client-s3'] : []),
    ...(a.queues?.length || a.mergeFailures ? ['@aws-sdk/client-sqs'] : []),
    ...(a.connections ? ['@aws-sdk/client-apigatewaymanagementapi'] : []),
    ...(a.secrets?.length ? ['@aws-sdk/client-secrets-manager'] : []),
  ];
}

const BENCH_SECRETS: Record<SecretName, Record<string, string>> = { identity: { IDP_SECRET_KEY: 'sk_bench' }, vapid: {}, origin: { ORIGIN_VERIFY: '' }, uploader: { UPLOADER_KEY: 'bench' } };

/** A stage's values for the functions' environment (secret values set directly, as locally: nothing is fetched). */
const BENCH_DEPLOYMENT: Deployment = {
  stage: 'bench',
  publicBase: 'https://bench.example/',
  cdnBase: 'https://cdn.bench.example/',
  origins: 'https://bench.example',
  identity: { publishableKey: '', issuer: 'https://idp.bench.example', jwksUrl: 'https://idp.bench.example/.well-known/jwks.json', apiUrl: 'https://idp.bench.example' },
  connectionsEndpoint: 'https://live.bench.example/bench',
  vapidSubject: 'mailto:ops@bench.example',
  tableName: 'bench',
  bucketName: 'bench-files',
  filesPrefix: '',
  workBucketName: 'bench-work',
  logSampleRate: 0,
  queueUrl: (name) => `https://sqs.us-east-1.amazonaws.com/000000000000/${name}`,
  secret: (name) => BENCH_SECRETS[name],
};

/**
 * Milliseconds a fresh Node process takes to import `file` (one run), in the function's environment: the entry
 * builds its platform and handler at import, as Lambda's init phase does (no network: no secret ARN is set).
 */
function importOnce(file: string, spec: FunctionSpec): number {
  const code = 'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));';
  const { NODE_OPTIONS: _, ...env } = functionEnvironment(spec, BENCH_DEPLOYMENT);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code, pathToFileURL(file).href], {
    encoding: 'utf8',
    env: { ...env, AWS_REGION: 'us-east-1', PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  if (run.status !== 0) throw new Error(`importing ${file} failed: ${run.stderr}`);
  return Number(run.stdout);
}

/**
 * Import times measured before per-function composition (issue 12), on this project's 2-core machine under the
 * load of parallel test runs (11 runs each, median): every function then loaded every SDK client. `halve`: the
 * functions the issue asks to import in at most half that time.
 */
export const COLD_BEFORE_MS: Record<FunctionName, { ms: number; halve?: true }> = {
  api: { ms: 165.0 },
  upload: { ms: 155.1 },
  pages: { ms: 160.2 },
  'ws-connect': { ms: 155.8 },
  'ws-message': { ms: 160.1, halve: true },
  'ws-disconnect': { ms: 157.1, halve: true },
  merge: { ms: 167.6 },
  fanout: { ms: 161.7 },
  push: { ms: 162.0 },
  seal: { ms: 155.2 },
  snapshot: { ms: 162.0 },
  retention: { ms: 156.2 },
  items: { ms: 154.6 },
  'live-sweep': { ms: 163.2, halve: true },
  redrive: { ms: 169.9 },
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export interface ColdFigures extends Bundle {
  initMs: number;
  /** SDK packages imported that the manifest does not allow. */
  extra: string[];
}

/** Every function's bundle size, SDK imports and median import time over `runs` fresh processes. */
export async function benchCold(runs = 7, only?: readonly FunctionName[]): Promise<ColdFigures[]> {
  const specs = FUNCTIONS.filter((f) => !only || only.includes(f.name));
  const bundles = await Promise.all(specs.map(bundleFunction));
  const times = new Map<FunctionName, number[]>(bundles.map((b) => [b.name, []]));
  // Interleaved, so a burst of load on a shared machine spreads over every function rather than one.
  for (let i = 0; i < runs; i++) for (const [j, b] of bundles.entries()) times.get(b.name)!.push(importOnce(b.file, specs[j]));
  return bundles.map((b, i) => {
    const allowed = allowedSdk(specs[i]);
    return { ...b, initMs: median(times.get(b.name)!), extra: [...b.sdk.static, ...b.sdk.dynamic].filter((p) => !allowed.includes(p)) };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.env.COLD_RUNS ?? 7);
  for (const f of await benchCold(runs)) {
    console.log(`${f.name.padEnd(14)} ${(f.bytes / 1024).toFixed(1).padStart(8)} KB ${f.initMs.toFixed(1).padStart(8)} ms  ${[...f.sdk.static, ...f.sdk.dynamic.map((d) => `${d} (dynamic)`)].join(' ')}`);
  }
}
