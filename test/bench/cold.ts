/**
 * Cold start per function: the esbuild bundle `npm run synth` deploys (lib/constructs/bundling.ts, the AWS SDK
 * bundled and tree-shaken, split into the entry and its chunks), its size (all of it, and what the init loads),
 * the `@aws-sdk/*` client packages it holds, and the time a fresh Node process takes to import it (median of runs).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { codeOutputs, ENTRY_FILE, esbuildOptions, initOutputs } from '../../lib/constructs/bundling';
import { type Deployment, functionEnvironment, type SecretName } from '../../lib/environment';
import { FUNCTIONS, type FunctionName, type FunctionSpec } from '../../shared/topology';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** Inside the project, so a bundle's external imports (none today) would resolve from its node_modules. */
const OUT = join(ROOT, 'node_modules', '.cache', 'cold-bundles');

export interface Bundle {
  name: FunctionName;
  file: string;
  /** The JavaScript it deploys (entry and every chunk). */
  bytes: number;
  /** The part of it the init loads: the entry and the chunks it imports statically. */
  initBytes: number;
  /** `@aws-sdk/*` client packages in the bundle: loaded at import (`static`) or only by a dynamic `import()`. */
  sdk: { static: string[]; dynamic: string[] };
}

/** The SDK packages the manifest's access speaks of (clients and the DynamoDB document helpers). */
const SDK_CLIENT = /^@aws-sdk\/(client-[a-z0-9-]+|lib-dynamodb|util-dynamodb)$/;
const packageOf = (path: string): string | null => path.match(/node_modules\/(@aws-sdk\/[^/]+)\//)?.[1] ?? null;

/**
 * The SDK client packages a bundle holds, from esbuild's metafile: bundled code that made it into the output,
 * or external imports. A package reached only through dynamic `import()` edges is `dynamic`.
 */
export function sdkPackages(metafile: Metafile): { static: string[]; dynamic: string[] } {
  const held = new Set<string>();
  for (const [, output] of codeOutputs(metafile)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const pkg = packageOf(path);
      if (pkg && SDK_CLIENT.test(pkg) && input.bytesInOutput > 0) held.add(pkg);
    }
    for (const i of output.imports) if (i.external && SDK_CLIENT.test(i.path)) held.add(i.path);
  }
  const staticEdge = new Set<string>();
  for (const [from, input] of Object.entries(metafile.inputs)) {
    for (const i of input.imports) {
      const to = packageOf(i.path) ?? (SDK_CLIENT.test(i.path) ? i.path : null);
      if (to && i.kind !== 'dynamic-import' && packageOf(from) !== to) staticEdge.add(to);
    }
  }
  const all = [...held].sort();
  return { static: all.filter((p) => staticEdge.has(p)), dynamic: all.filter((p) => !staticEdge.has(p)) };
}

/** Bundles one function as synth does and reads the SDK packages it holds from esbuild's metafile. */
export async function bundleFunction(spec: FunctionSpec): Promise<Bundle> {
  const dir = join(OUT, spec.name);
  mkdirSync(dir, { recursive: true });
  const result = await build({ ...esbuildOptions(join(ROOT, spec.entry), dir), metafile: true });
  const outputs = result.metafile.outputs;
  const bytes = codeOutputs(result.metafile).reduce((sum, [, o]) => sum + o.bytes, 0);
  const initBytes = initOutputs(result.metafile).reduce((sum, path) => sum + outputs[path].bytes, 0);
  return { name: spec.name, file: join(dir, ENTRY_FILE), bytes, initBytes, sdk: sdkPackages(result.metafile) };
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

const BENCH_SECRETS: Record<SecretName, Record<string, string>> = {
  identity: { IDP_SECRET_KEY: 'sk_bench' },
  vapid: {},
  vapidPublic: {},
  origin: { ORIGIN_VERIFY: '' },
  uploader: { UPLOADER_KEY: 'bench' },
};

/** A stage's values for the functions' environment (secret values set directly, as locally: nothing is fetched). */
const BENCH_DEPLOYMENT: Deployment = {
  stage: 'bench',
  publicBase: 'https://bench.example/',
  cdnBase: 'https://cdn.bench.example/',
  origins: 'https://bench.example',
  identity: {
    publishableKey: '',
    issuer: 'https://idp.bench.example',
    jwksUrl: 'https://idp.bench.example/.well-known/jwks.json',
    apiUrl: 'https://idp.bench.example',
  },
  connectionsEndpoint: 'https://live.bench.example/bench',
  vapidSubject: 'mailto:ops@bench.example',
  tableName: 'bench',
  bucketName: 'bench-files',
  filesPrefix: '',
  workBucketName: 'bench-work',
  logSampleRate: 0,
  tracing: false,
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
    console.log(
      `${f.name.padEnd(14)} ${(f.bytes / 1024).toFixed(1).padStart(8)} KB ${(f.initBytes / 1024).toFixed(1).padStart(8)} KB at init ${f.initMs.toFixed(1).padStart(8)} ms  ${[...f.sdk.static, ...f.sdk.dynamic.map((d) => `${d} (dynamic)`)].join(' ')}`,
    );
  }
}
