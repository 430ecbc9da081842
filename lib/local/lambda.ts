/** Loads handler modules named by the manifest and invokes them with a Lambda-like context. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { type FunctionName, functionSpec } from '../topology';

type Handler = (event: unknown, context: Context) => Promise<unknown>;
/** Wraps every invocation (the local faults count and crash a merge's writes through it). */
export type Around = <T>(name: FunctionName, run: () => Promise<T>) => Promise<T>;

const running = new AsyncLocalStorage<FunctionName>();

/** The function whose invocation the calling code runs in (undefined outside any), for the local grant checks. */
export const currentFunction = (): FunctionName | undefined => running.getStore();

/** Runs `run` as if inside an invocation of `name` (tests: a call a handler could make, checked as that function's). */
export const runAs = <T>(name: FunctionName, run: () => Promise<T>): Promise<T> => running.run(name, run);

export class LambdaHost {
  private readonly loaded = new Map<FunctionName, Promise<Handler>>();

  constructor(
    private readonly root: string,
    private readonly around: Around = (_name, run) => run(),
  ) {}

  /** Imports every handler up front, so a broken module fails start-up rather than a request. */
  async preload(names: readonly FunctionName[]): Promise<void> {
    await Promise.all(names.map((n) => this.handler(n)));
  }

  handler(name: FunctionName): Promise<Handler> {
    let h = this.loaded.get(name);
    if (!h) {
      const spec = functionSpec(name);
      h = import(join(this.root, spec.entry)).then((m: { handler: Handler }) => m.handler);
      this.loaded.set(name, h);
    }
    return h;
  }

  async invoke<T = unknown>(name: FunctionName, event: unknown): Promise<T> {
    const spec = functionSpec(name);
    const handler = await this.handler(name);
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
      getRemainingTimeInMillis: () => Math.max(0, spec.timeoutSeconds * 1000 - (Date.now() - started)),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
    return (await running.run(name, () => this.around(name, () => handler(event, context)))) as T;
  }
}
