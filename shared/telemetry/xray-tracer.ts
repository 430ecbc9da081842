/**
 * The Powertools Tracer behind shared/telemetry/tracing.ts, in a module of its own so that it (and the X-Ray
 * SDK under it, about 125 KB of the bundle) is evaluated only in a process that traces: tracing.ts imports
 * it dynamically, and esbuild keeps a dynamically imported module unevaluated until then.
 */
import { getXrayTraceDataFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';

/** One per process (in AWS a process hosts one function; its service name comes from `POWERTOOLS_SERVICE_NAME`). */
export const tracer = new Tracer();

/** The handler middleware: a subsegment per invocation, cold start annotated, the response left out. */
export const handlerMiddleware = (): MiddlewareObj => captureLambdaHandler(tracer, { captureResponse: false }) as unknown as MiddlewareObj;

export { getXrayTraceDataFromEnv };
