/**
 * The middy chain of every root that is not an HTTP API (queue and stream consumers, schedules, socket routes):
 * the function's telemetry first (tracing, context, metrics flush), then any error leaving the function redacted
 * before the Lambda runtime logs it. One place, so no root forgets the redaction.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { redactErrors } from '../log';
import type { FunctionTelemetry } from './function-telemetry';

export function backgroundRoot<E, R>(t: FunctionTelemetry, handle: (event: E) => Promise<R>): (event: E, context: Context) => Promise<R> {
  return t.handler(
    middy<E, R>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler((event) => handle(event)),
  );
}
