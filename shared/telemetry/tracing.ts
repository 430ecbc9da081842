/**
 * X-Ray traces (issue 26 point 1): one Powertools Tracer per process (shared/telemetry/xray-tracer.ts), whose
 * handler middleware every function's telemetry puts first in its chain (shared/telemetry/function-telemetry.ts).
 *
 * The Tracer is on only where Lambda runs the function with the stage's tracing on: the stack sets
 * `POWERTOOLS_TRACE_ENABLED` from the stage (lib/stages.ts `tracing`), and outside Lambda (no
 * `AWS_EXECUTION_ENV`: the local runtime's in-process handlers, unit tests) Powertools switches it off by
 * itself. The local runtime's bundle sandboxes look like Lambda, so it sets the variable to `false` there:
 * no X-Ray daemon is needed anywhere locally.
 *
 * Nothing secret enters a trace: handler responses are never captured (an answer can carry a cap or a
 * session), errors are captured after `redactErrors` has redacted them, and annotations take only the keys of
 * {@link TraceAnnotations}.
 */
import type { MiddlewareObj } from '@middy/core';

/** What a trace may be searched by: never a cap, a token or a key, so no other key typechecks. */
export interface TraceAnnotations {
  market?: string;
  uploadId?: string;
}

/**
 * Whether this process traces: in Lambda (`AWS_EXECUTION_ENV`) unless `POWERTOOLS_TRACE_ENABLED` is `false`,
 * Powertools' own rule. Only then is the tracer module loaded (a cold start without tracing pays nothing).
 */
const wanted = (process.env.AWS_EXECUTION_ENV ?? '') !== '' && (process.env.POWERTOOLS_TRACE_ENABLED ?? '').toLowerCase() !== 'false';
const xray = wanted ? await import('./xray-tracer') : undefined;
const tracer = xray?.tracer.isTracingEnabled() ? xray.tracer : undefined;

/** Whether the invocations of this process are traced. */
export const tracingOn = (): boolean => tracer !== undefined;

/** The handler middleware (a subsegment per invocation), none when tracing is off. */
export const traceMiddlewares = <E, R>(): Array<MiddlewareObj<E, R>> => (xray && tracer ? [xray.handlerMiddleware() as MiddlewareObj<E, R>] : []);

/**
 * An SDK client with its calls as X-Ray subsegments named by service and operation, when tracing is on; the
 * ports over a client of their own (queues, secrets) show as the HTTPS calls the tracer captures.
 */
export function tracedClient<C>(client: C): C {
  const sdk = typeof client === 'object' && client !== null && 'middlewareStack' in client;
  return sdk && tracer ? tracer.captureAWSv3Client(client) : client;
}

/** Annotates the current (sub)segment; nothing when tracing is off. */
export function annotate(annotations: TraceAnnotations): void {
  if (!tracer) return;
  for (const [key, value] of Object.entries(annotations)) if (value !== undefined) tracer.putAnnotation(key, value);
}

/**
 * Runs `work` in a subsegment of its own, annotated (one merged book of a batch); just runs it when tracing
 * is off.
 */
export async function inSubsegment<T>(name: string, annotations: TraceAnnotations, work: () => Promise<T>): Promise<T> {
  const parent = tracer?.getSegment();
  if (!tracer || !parent) return work();
  const sub = parent.addNewSubsegment(name);
  tracer.setSegment(sub);
  try {
    annotate(annotations);
    return await work();
  } catch (err) {
    sub.addError(err as Error);
    throw err;
  } finally {
    sub.close();
    tracer.setSegment(parent);
  }
}

/** The fields of an X-Ray trace header (`Root=…;Parent=…;Sampled=…`). */
export type TraceData = Record<string, string | undefined>;

/**
 * The `AWSTraceHeader` of a message sent now: the invocation's root and sampling decision, the current
 * (sub)segment as parent, so the consumer's trace continues this one. Undefined without a trace.
 */
export function traceHeaderOf(data: TraceData | undefined, parentId: string | undefined): string | undefined {
  const root = data?.Root;
  if (!root || !/^1-[0-9a-f]{8}-[0-9a-f]{24}$/.test(root)) return undefined;
  const parent = parentId ?? data.Parent;
  const sampled = data.Sampled === '1' ? '1' : '0';
  return parent && /^[0-9a-f]{16}$/.test(parent) ? `Root=${root};Parent=${parent};Sampled=${sampled}` : `Root=${root};Sampled=${sampled}`;
}

/** The current invocation's trace header for a message (undefined when tracing is off). */
export function currentTraceHeader(): string | undefined {
  if (!xray || !tracer) return undefined;
  return traceHeaderOf(xray.getXrayTraceDataFromEnv(), tracer.getSegment()?.id);
}
