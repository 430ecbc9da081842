/**
 * Loads handler modules named by the manifest and invokes them with a Lambda-like context, held to Lambda's
 * limits as AWS holds them: the event and the result at most 6 MB each (measured as the JSON the service
 * posts, binary bodies as base64), and the function's timeout from the manifest in wall time (AWS stops a
 * function by the wall clock, whatever the service clock says). A timed-out handler cannot be stopped in
 * one process: it runs on unobserved, while its caller already has the error (on AWS the sandbox is frozen).
 * With sandboxes (`--bundles`, lib/local/functions/sandboxes.ts) each function runs from its deploy bundle in a worker
 * thread instead, and a timeout ends that worker as Lambda ends the sandbox.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Context } from 'aws-lambda';
import type { ServicesOf } from '../../../shared/services';
import { type FunctionName, functionSpec } from '../../../shared/topology';
import type { ContextFields } from './sandboxes';

type Handler = (event: unknown, context: Context) => Promise<unknown>;
/** Wraps every invocation (the local faults count and crash a merge's writes through it). */
export type Around = <T>(name: FunctionName, run: () => Promise<T>) => Promise<T>;

const running = new AsyncLocalStorage<FunctionName>();

/** Lambda's synchronous invocation limits: "Request must be smaller than 6291456 bytes", response "6291556 bytes". */
export const INVOKE_REQUEST_MAX = 6_291_456;
export const INVOKE_RESPONSE_MAX = 6_291_556;

/** What the Lambda service answers when an invocation breaks a limit (the caller maps it as API Gateway does). */
export class LambdaLimitError extends Error {
  constructor(
    readonly limit: 'request' | 'response' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = limit === 'timeout' ? 'Sandbox.Timedout' : limit === 'request' ? 'RequestEntityTooLargeException' : 'ResponseSizeTooLarge';
  }
}

/**
 * Knobs for tests (in-process): a shorter timeout per function, and a wall-time delay before a function's
 * handler runs (a slow function), so timeouts are shown in milliseconds rather than by waiting 29 s.
 */
export interface LambdaKnobs {
  timeoutMs: Partial<Record<FunctionName, number>>;
  delayMs: Partial<Record<FunctionName, number>>;
  /** A lower response limit than Lambda's (tests show the limit at an exact size without 6 MB answers). */
  responseMax?: number;
  /** Called with each result's size as the limit counts it. */
  onResult?: (name: FunctionName, bytes: number) => void;
}

const jsonBytes = (value: unknown): number => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));

/** Where invocations run when not in this process: one sandbox per function, from its bundle (lib/local/functions/sandboxes.ts). */
export interface SandboxHost {
  preload(names: readonly FunctionName[]): Promise<void>;
  invoke(name: FunctionName, event: unknown, context: ContextFields, deadline: number): Promise<unknown>;
  timedOut(name: FunctionName, requestId: string): void;
}

/** The function whose invocation the calling code runs in (undefined outside any), for the local grant checks. */
export const currentFunction = (): FunctionName | undefined => running.getStore();

/** Runs `run` as if inside an invocation of `name` (tests: a call a handler could make, checked as that function's). */
export const runAs = <T>(name: FunctionName, run: () => Promise<T>): Promise<T> => running.run(name, run);

export class LambdaHost {
  private readonly loaded = new Map<FunctionName, Promise<Handler>>();
  readonly knobs: LambdaKnobs = { timeoutMs: {}, delayMs: {} };
  /** Invocations in flight: the timeout's allowance grows with them (see InFlight). */
  readonly inFlight = new InFlight();
  /** Set in `--bundles` mode: every invocation runs in the function's sandbox, none in this process. */
  sandboxes: SandboxHost | null = null;

  constructor(
    private readonly root: string,
    /** A function's services: its ports over its local platform (awsServices on the engines), or of the memory fakes. */
    private readonly servicesOf: (name: FunctionName) => ServicesOf<FunctionName>,
    private readonly around: Around = (_name, run) => run(),
  ) {
    // As Lambda sets it for an on-demand sandbox: Powertools reports `cold_start` only then (shared/telemetry/).
    process.env.AWS_LAMBDA_INITIALIZATION_TYPE ??= 'on-demand';
  }

  /** Imports every handler up front, so a broken module fails start-up rather than a request. */
  async preload(names: readonly FunctionName[]): Promise<void> {
    if (this.sandboxes) return this.sandboxes.preload(names);
    await Promise.all(names.map((n) => this.handler(n)));
  }

  handler(name: FunctionName): Promise<Handler> {
    let h = this.loaded.get(name);
    if (!h) {
      const spec = functionSpec(name);
      // The composition root beside the Lambda entry (lambdas/<fn>/handler.ts), on its manifest's ports.
      const root = join(this.root, dirname(spec.entry), 'handler.ts');
      h = import(root).then((m: { createHandler: (svc: ServicesOf<FunctionName>) => Handler }) => m.createHandler(this.servicesOf(name)));
      this.loaded.set(name, h);
    }
    return h;
  }

  async invoke<T = unknown>(name: FunctionName, event: unknown): Promise<T> {
    const spec = functionSpec(name);
    const sandboxes = this.sandboxes;
    const handler = sandboxes ? null : await this.handler(name);
    const eventBytes = jsonBytes(event);
    if (eventBytes > INVOKE_REQUEST_MAX)
      throw new LambdaLimitError(
        'request',
        `${eventBytes} byte payload is too large for the RequestResponse invocation type (limit ${INVOKE_REQUEST_MAX} bytes)`,
      );
    const timeoutMs = this.knobs.timeoutMs[name] ?? spec.timeoutSeconds * 1000;
    const delayMs = this.knobs.delayMs[name] ?? 0;
    const started = Date.now();
    const context: Context = {
      callbackWaitsForEmptyEventLoop: false,
      functionName: name,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
      memoryLimitInMB: String(spec.memoryMb),
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${name}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
    const slow = async () => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    };
    const run = sandboxes
      ? slow().then(() => {
          const { getRemainingTimeInMillis, done, fail, succeed, callbackWaitsForEmptyEventLoop, ...fields } = context;
          return sandboxes.invoke(name, event, fields, started + timeoutMs);
        })
      : running.run(name, () =>
          this.around(name, async () => {
            await slow();
            return handler!(event, context);
          }),
        );
    const share = this.inFlight.track();
    const timedOut = new Promise<never>((_, reject) => {
      share.deadline(started, timeoutMs, () => {
        // Lambda ends the sandbox of a timed-out invocation; the next one starts a fresh one.
        sandboxes?.timedOut(name, context.awsRequestId);
        reject(new LambdaLimitError('timeout', `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`));
      });
    });
    // The handler's own failure after a timeout has no one to hear it (its caller already has the timeout).
    run.catch(() => undefined);
    try {
      const result = await Promise.race([run, timedOut]);
      const resultBytes = jsonBytes(result);
      this.knobs.onResult?.(name, resultBytes);
      const max = this.knobs.responseMax ?? INVOKE_RESPONSE_MAX;
      if (resultBytes > max)
        throw new LambdaLimitError('response', `Response payload size exceeded maximum allowed payload size (${max} bytes): ${resultBytes} bytes`);
      return result as T;
    } finally {
      share.done();
    }
  }
}

/**
 * Invocations in flight in this process. On AWS each concurrent invocation runs on its own instance; here
 * they share one event loop, so a burst of N stretches each one's wall time about N-fold. A wall-time limit
 * (a function's timeout, API Gateway's 30 s) therefore allows `limit × the most invocations in flight at once
 * during the call`: a lone invocation gets exactly the limit, as on AWS, and a burst is not failed for
 * sharing one CPU.
 */
export class InFlight {
  private readonly open = new Set<{ peak: number }>();

  /** Registers one call; `deadline` calls `onPast` once `limitMs × peak` has passed since `started`; `done` ends it. */
  track(): { readonly peak: number; deadline(started: number, limitMs: number, onPast: () => void): void; done(): void } {
    const me = { peak: 0 };
    this.open.add(me);
    for (const o of this.open) o.peak = Math.max(o.peak, this.open.size);
    const open = this.open;
    let timer: NodeJS.Timeout | undefined;
    return {
      get peak() {
        return me.peak;
      },
      deadline(started, limitMs, onPast) {
        const check = () => {
          const left = limitMs * me.peak - (Date.now() - started);
          if (left <= 0) onPast();
          else timer = setTimeout(check, left);
        };
        timer = setTimeout(check, limitMs);
      },
      done() {
        clearTimeout(timer);
        open.delete(me);
      },
    };
  }
}
