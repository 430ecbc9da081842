import middy from '@middy/core';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fanout } from '../../shared/live/fanout';
import { redactErrors } from '../../shared/log';
import { functionTelemetry, metric } from '../../shared/telemetry/function-telemetry';
import { METRIC } from '../../shared/telemetry/metric-names';
import { services } from '../../shared/services';

const t = functionTelemetry('fanout');

/** The table stream's consumer: `hello`, `ah`, `sealed`, `alert`, `roles` and device closes (see shared/live/fanout.ts). */
export const handler = t.handler(
  middy<DynamoDBStreamEvent, void>().use(t.middlewares()).use(redactErrors()).handler(async (event) => {
    const started = performance.now();
    await fanout(services(), event);
    metric(METRIC.fanoutDurationMs, Math.round(performance.now() - started));
  }),
);
