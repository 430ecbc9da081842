/**
 * A local runtime for one integration test file: in memory, manual clock, on the run's shared engines or on the
 * in-memory fakes (`backend`, or LOCAL_BACKEND=memory for every file), with small helpers for the control API.
 * Tests talk to it over real HTTP and WebSockets.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { BundleBuildOptions } from '../../lib/local/functions/bundles';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../lib/local/runtime';
import { watchBase } from './openapi-fetch';

/** 2026-11-02T00:00:00Z plus a little: a Monday, far from any boundary tests move across. */
export const DEFAULT_START = Date.UTC(2026, 10, 2, 0, 0, 0) + 1000;

export interface Local {
  base: string;
  /** The APIs without the edge in front (only when started with `direct`): what calling execute-api directly is. */
  directBase: string;
  runtime: Runtime;
  close(): Promise<void>;
  now(): Promise<number>;
  advance(ms: number): Promise<number>;
  setClock(ms: number): Promise<number>;
  settle(): Promise<void>;
  tick(): Promise<string[]>;
  faults(f: Record<string, string | number>): Promise<unknown>;
  /** A user of the local identity provider. */
  user(input?: Record<string, unknown>): Promise<{ id: string; email: string }>;
  session(userId: string, extra?: Record<string, unknown>): Promise<string>;
  apiKey(userId: string, scopes?: string[]): Promise<string>;
  /** A JSON request; `token` becomes `Authorization: Bearer`. */
  api(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>;
}

/** The back end a file's runtimes start on unless it names one: LOCAL_BACKEND=memory, else the engines. */
export const defaultBackend = (): 'memory' | 'engines' => (process.env.LOCAL_BACKEND === 'memory' ? 'memory' : 'engines');

/**
 * `bundles` (or LOCAL_BUNDLES=1 for every file): the functions run from their deploy bundles, each in its own
 * worker thread (lib/local/functions/sandboxes.ts); their S3, DynamoDB and SQS calls are recorded too.
 * `backend: 'memory'`: the in-memory fakes (lib/local/memory/), no engine and no global setup needed; the
 * runtime's engine-only members (`s3`, `operator.ddb`, `awsMeter`, `recorder`, `sandboxCredentials`) then throw
 * or are absent, so a file that needs the engines says so.
 */
export async function startLocal(
  opts: {
    backend?: 'memory' | 'engines';
    clockStart?: number;
    filesPrefix?: string;
    direct?: boolean;
    bundles?: boolean | BundleBuildOptions;
    callsInMemory?: boolean;
    catalogueKeysPerDay?: number;
  } = {},
): Promise<Local> {
  // Bundles and recorded calls are the engines' alone: a file asking for them runs on the engines whatever LOCAL_BACKEND says.
  const backend = opts.backend ?? (opts.bundles || opts.callsInMemory ? 'engines' : defaultBackend());
  const common = {
    port: 0,
    dataDir: ':memory:',
    clock: 'manual',
    clockStart: opts.clockStart ?? DEFAULT_START,
    name: randomBytes(6).toString('hex'),
    filesPrefix: opts.filesPrefix,
    direct: opts.direct,
    catalogueKeysPerDay: opts.catalogueKeysPerDay,
    // LOCAL_LOG=1 prints the service's JSON lines (debugging a file); else errors only.
    log: process.env.LOCAL_LOG === '1',
  } as const;
  // The engines and the run's files come from the global setup (`inject`), which a memory-only project has not.
  const runtime = await startRuntime(backend === 'memory' ? { ...common, backend } : { ...common, ...engineOptions(opts) });
  if (opts.direct) watchBase(runtime.directBase);
  return { ...localClient(runtime.base), directBase: runtime.directBase, runtime, close: () => runtime.close() };
}

/** The engines' options: the run's shared DynamoDB Local and s3rver, the recorded calls, the synthesized template. */
function engineOptions(opts: { bundles?: boolean | BundleBuildOptions; callsInMemory?: boolean }): Partial<RuntimeOptions> {
  return {
    backend: 'engines',
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    s3Endpoint: inject('s3Endpoint'),
    bundles: opts.bundles ?? process.env.LOCAL_BUNDLES === '1',
    // Checked against the synthesized IAM policies when the run ends (test/support/global-setup.ts).
    // `callsInMemory`: kept in `runtime.recorder.calls` for the test to check (one that makes refused calls on purpose).
    recordCalls: opts.callsInMemory ? {} : { file: join(inject('iamCallsDir'), `${process.pid}.jsonl`) },
    templateFile: inject('localTemplateFile'),
  };
}

/** The control API and JSON requests of a local runtime at `base` (in this process or another). */
export function localClient(base: string): Omit<Local, 'runtime' | 'close' | 'directBase'> {
  // Every answer from the runtime is held to its OpenAPI documents (issue 24 point 10).
  watchBase(base);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json as any;
  };
  return {
    base,
    now: async () => ((await (await fetch(`${base}/_local/health`)).json()) as { now: number }).now,
    advance: async (ms) => (await post('/_local/clock', { advance: ms })).now,
    setClock: async (ms) => (await post('/_local/clock', { now: ms })).now,
    settle: async () => void (await post('/_local/settle', {})),
    tick: async () => (await post('/_local/tick', {})).ran,
    faults: (f) => post('/_local/faults', f),
    user: (input = {}) => post('/_local/users', input),
    session: async (userId, extra = {}) => (await post('/_local/sessions', { userId, ...extra })).token,
    apiKey: async (userId, scopes) => (await post('/_local/api-keys', scopes ? { userId, scopes } : { userId })).key,
    api: async (method, path, o = {}) => {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      if (method !== 'GET' && method !== 'HEAD' && headers.origin === undefined) headers.origin = base;
      const res = await fetch(`${base}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
  };
}
