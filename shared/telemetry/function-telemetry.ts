/**
 * A function's telemetry: its Powertools Logger (service = the function's name; request id and cold start
 * from `injectLambdaContext`) and Metrics (EMF, flushed by `logMetrics` at the end of each invocation), both
 * writing to the sink. Code below the handlers counts with `metric()`, which finds the invocation's function
 * through the scope; outside any invocation (unit tests, the bench) it does nothing. The X-Ray tracer's
 * middleware comes first (shared/telemetry/tracing.ts), so every function is traced from this one place.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { loggerFor } from './loggers';
import { METRIC_NAMESPACE, type MetricName } from './metric-names';
import { invocationScope, type Scope } from './scope';
import { sinkConsole, toSink } from './sink';
import { traceMiddlewares } from './tracing';

export interface FunctionTelemetry {
  logger: Logger;
  metrics: Metrics;
  /**
   * The tracer's handler subsegment, injectLambdaContext (request id, cold start, sampled debug) and logMetrics
   * (EMF flush), first in a handler's middy chain.
   */
  middlewares<E, R>(): Array<MiddlewareObj<E, R>>;
  /** The exported handler: the middy chain run inside the function's scope. */
  handler<E, R>(h: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R>;
}

const made = new Map<string, FunctionTelemetry>();

/** Metrics' own warnings go to the sink, except the one for an invocation that counted nothing (most do). */
const metricsWarnings = {
  ...sinkConsole,
  warn: (msg: unknown, ...rest: unknown[]) => (String(msg).startsWith('No application metrics') ? undefined : sinkConsole.warn(msg, ...rest)),
};

export function functionTelemetry(fn: string): FunctionTelemetry {
  let t = made.get(fn);
  if (!t) {
    const logger = loggerFor(fn);
    const metrics = toSink(new Metrics({ namespace: METRIC_NAMESPACE, serviceName: fn, logger: metricsWarnings }));
    const scope: Scope = { fn, logger, metrics };
    // As Powertools counts it: the first invocation of an on-demand sandbox (Lambda sets the variable).
    let first = process.env.AWS_LAMBDA_INITIALIZATION_TYPE === 'on-demand';
    t = {
      logger,
      metrics,
      middlewares: <E, R>() =>
        [...traceMiddlewares<E, R>(), injectLambdaContext(logger, { resetKeys: true }), logMetrics(metrics)] as unknown as Array<MiddlewareObj<E, R>>,
      handler: (h) => (event, context) => {
        const coldStart = first;
        first = false;
        return invocationScope.run({ ...scope, requestId: context?.awsRequestId, coldStart }, () => h(event, context));
      },
    };
    made.set(fn, t);
  }
  return t;
}

/** Adds to a metric of the current invocation (nothing outside one); `dimensions` (e.g. market) give it a line of its own. */
export function metric(name: MetricName, value: number, dimensions: Record<string, string> = {}): void {
  const scope = invocationScope.getStore();
  if (!scope) return;
  const unit = name.endsWith('_ms') ? MetricUnit.Milliseconds : MetricUnit.Count;
  if (Object.keys(dimensions).length === 0) {
    scope.metrics.addMetric(name, unit, value);
    return;
  }
  const single = toSink(scope.metrics.singleMetric());
  for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
  single.addMetric(name, unit, value);
}
