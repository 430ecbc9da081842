/**
 * The local runtime's `--bundles` mode: every function runs from its deploy bundle (lib/local/functions/bundles.ts) in
 * its own worker thread, started with that function's environment only, as a Lambda sandbox is. The bundle is
 * a black box: environment in, `handler` export out. An invocation is a message (the event as JSON, the
 * Lambda context's fields) and so is its answer (the result as JSON, or the error). A sandbox that timed out
 * is ended, as Lambda ends it, and the next invocation starts a fresh one: a true cold start.
 *
 * One sandbox per function serves the invocations that overlap (Lambda would start one per concurrent call):
 * they share its event loop, and a timed-out sandbox is ended once the others in it have answered.
 */

import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Clock, ManualClock, systemClock } from '../../../shared/clock';
import type { LineLevel } from '../../../shared/telemetry/sink';
import { type FunctionName, functionSpec } from '../../../shared/topology';
import type { Bundles } from './bundles';

const BOOTSTRAP = join(dirname(fileURLToPath(import.meta.url)), 'bundle-worker.mjs');

/** The Lambda context's plain fields (the functions are added in the sandbox). */
export interface ContextFields {
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
}

/** What the runtime sees of one function's sandboxes (tests: proof that the bundle served it). */
export interface Served {
  /** The bundle file the sandbox imported, as its bootstrap reports it. */
  url: string;
  invocations: number;
  /** Sandboxes started (cold starts): one at start, one more after each timeout. */
  starts: number;
  /** Thread ids of the sandboxes that answered. */
  threads: number[];
}

interface WorkerError {
  errorType: string;
  errorMessage: string;
  stack?: string;
}

/** An error as the Lambda service reports a function's failure (name = errorType). */
const toError = (e: WorkerError): Error =>
  Object.assign(new Error(e.errorMessage), { name: e.errorType, stack: e.stack ?? `${e.errorType}: ${e.errorMessage}` });

class Sandbox {
  readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly ready: Promise<string>;
  retired = false;
  private ended = false;

  constructor(
    readonly worker: Worker,
    onLine: (line: string, level: LineLevel) => void,
    onResult: (threadId: number) => void,
  ) {
    for (const [stream, level] of [
      [worker.stdout, 'info'],
      [worker.stderr, 'error'],
    ] as const) {
      createInterface({ input: stream }).on('line', (line) => onLine(line, levelOf(line, level)));
    }
    this.ready = new Promise((resolve, reject) => {
      worker.on('message', (m: { type: string; id?: string; url?: string; result?: string; error?: WorkerError }) => {
        if (m.type === 'ready') resolve(m.url ?? '');
        else if (m.type === 'init-error') reject(toError(m.error!));
        else if (m.type === 'result' || m.type === 'error') {
          const call = this.pending.get(m.id!);
          if (!call) return; // answered after its timeout: no one waits for it
          this.pending.delete(m.id!);
          onResult(worker.threadId);
          if (m.type === 'result') call.resolve(m.result === undefined ? undefined : JSON.parse(m.result));
          else call.reject(toError(m.error!));
          this.endIfIdle();
        }
      });
      const failAll = (err: Error) => {
        this.ended = true;
        reject(err);
        for (const call of this.pending.values()) call.reject(err);
        this.pending.clear();
      };
      worker.on('error', (err) => {
        const oom = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        failAll(
          Object.assign(new Error(oom ? `Runtime exited: out of memory (${err.message})` : `Runtime exited with error: ${err.message}`), {
            name: oom ? 'Runtime.OutOfMemory' : 'Runtime.ExitError',
          }),
        );
      });
      worker.on('exit', (code) => failAll(Object.assign(new Error(`Runtime exited with error: exit status ${code}`), { name: 'Runtime.ExitError' })));
    });
    this.ready.catch(() => undefined);
  }

  invoke(id: string, event: string, context: ContextFields, deadline: number): Promise<unknown> {
    if (this.ended) return Promise.reject(Object.assign(new Error('Runtime exited'), { name: 'Runtime.ExitError' }));
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'invoke', id, event, context, deadline });
    });
  }

  /** Ends a retired sandbox once nothing in it waits for an answer. */
  endIfIdle(): void {
    if (this.retired && this.pending.size === 0 && !this.ended) {
      this.ended = true;
      void this.worker.terminate();
    }
  }

  end(): Promise<unknown> {
    this.ended = true;
    return this.worker.terminate();
  }
}

/** A log line's level: Powertools' JSON `level` when the line is one, else the stream's. */
function levelOf(line: string, fallback: LineLevel): LineLevel {
  const m = line.match(/"level":"(\w+)"/);
  const level = m?.[1].toLowerCase();
  return level === 'debug' || level === 'info' || level === 'warn' || level === 'error' ? level : level === 'critical' ? 'error' : fallback;
}

export interface SandboxSetup {
  bundles: Bundles;
  /** The whole environment of one function's sandbox. */
  environment: (name: FunctionName) => Record<string, string>;
  sqsEndpoint: string;
  clock: Clock;
  /** Where the sandboxes' stdout and stderr lines go (the runtime's log sink). */
  log: (line: string, level: LineLevel) => void;
}

export class Sandboxes {
  /** The service clock as the sandboxes read it: [mode, value] (see lib/local/functions/bundle-worker.mjs). */
  private readonly clockCells = new BigInt64Array(new SharedArrayBuffer(16));
  private readonly live = new Map<FunctionName, Sandbox>();
  private readonly all = new Set<Sandbox>();
  readonly served = new Map<FunctionName, Served>();
  private closed = false;

  constructor(private readonly setup: SandboxSetup) {
    this.writeClock();
  }

  /** Writes the service clock where the sandboxes read it (before each invocation and on each clock move). */
  writeClock(): void {
    const clock = this.setup.clock;
    const [mode, value] = clock === systemClock ? [0, 0] : clock instanceof ManualClock ? [1, clock.now()] : [2, clock.now() - Date.now()];
    Atomics.store(this.clockCells, 1, BigInt(value));
    Atomics.store(this.clockCells, 0, BigInt(mode));
  }

  /** Starts every function's sandbox (its bundle's init), so a bundle that does not load fails the start. */
  async preload(names: readonly FunctionName[]): Promise<void> {
    await Promise.all(names.map((n) => this.sandbox(n)));
  }

  /** The running sandbox of a function, started (a cold start) when there is none. */
  private async sandbox(name: FunctionName): Promise<Sandbox> {
    const running = this.live.get(name);
    if (running) {
      await running.ready;
      return running;
    }
    const bundle = this.setup.bundles.bundles.get(name);
    if (!bundle) throw new Error(`no bundle built for ${name}`);
    const spec = functionSpec(name);
    const worker = new Worker(BOOTSTRAP, {
      env: this.setup.environment(name),
      // A plain Node.js: no tsx loader, no flags of the runtime's process.
      execArgv: [],
      stdout: true,
      stderr: true,
      // The function's memory from the manifest, as the heap a sandbox may grow.
      resourceLimits: { maxOldGenerationSizeMb: spec.memoryMb },
      workerData: {
        file: bundle.file,
        clock: this.clockCells.buffer,
        sqsEndpoint: this.setup.sqsEndpoint,
        sdkShim: this.setup.bundles.sdkShim,
        sdkClients: bundle.sdkClients,
      },
    });
    const served = this.served.get(name) ?? { url: '', invocations: 0, starts: 0, threads: [] };
    this.served.set(name, served);
    served.starts++;
    const sandbox = new Sandbox(worker, this.setup.log, (threadId) => {
      served.invocations++;
      if (!served.threads.includes(threadId)) served.threads.push(threadId);
    });
    this.live.set(name, sandbox);
    this.all.add(sandbox);
    worker.once('exit', () => {
      this.all.delete(sandbox);
      if (this.live.get(name) === sandbox) this.live.delete(name);
    });
    try {
      served.url = await sandbox.ready;
    } catch (err) {
      const e = err as Error;
      void sandbox.end();
      const hint = /Cannot find (package|module)/.test(e.message)
        ? ' (the Lambda runtime provides only @aws-sdk/*: everything else must be in the bundle, see lib/constructs/bundling.ts)'
        : '';
      throw Object.assign(new Error(`the ${name} bundle ${bundle.file} failed to load: ${e.name}: ${e.message}${hint}`), { name: 'Runtime.ImportModuleError' });
    }
    return sandbox;
  }

  /** One invocation of the function's bundle; `deadline` (wall ms) is what `getRemainingTimeInMillis` counts down to. */
  async invoke(name: FunctionName, event: unknown, context: ContextFields, deadline: number): Promise<unknown> {
    if (this.closed) throw new Error('the local runtime is stopping');
    const sandbox = await this.sandbox(name);
    this.writeClock();
    return sandbox.invoke(context.awsRequestId, JSON.stringify(event), context, deadline);
  }

  /** A timed-out invocation: its sandbox takes no more calls and ends (now, or when the others in it answer). */
  timedOut(name: FunctionName, requestId: string): void {
    const sandbox = [...this.all].find((s) => s.pending.has(requestId));
    if (!sandbox) return;
    sandbox.pending.delete(requestId);
    sandbox.retired = true;
    if (this.live.get(name) === sandbox) this.live.delete(name);
    sandbox.endIfIdle();
  }

  /** Lets the invocations in flight answer (a schedule run as the runtime stops; at most 10 s), then ends every sandbox. */
  async close(): Promise<void> {
    this.closed = true;
    const until = Date.now() + 10_000;
    while ([...this.all].some((s) => s.pending.size > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await Promise.all([...this.all].map((s) => s.end()));
    this.live.clear();
  }
}
