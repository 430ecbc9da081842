import middy from '@middy/core';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import type { ScheduledEvent } from 'aws-lambda';
import { type RedriveOutcome, redriveMerges } from '../../shared/market/merge-redrive';
import { services } from '../../shared/services';

const t = functionTelemetry('redrive');

/** The redrive schedule (every 5 minutes): merge dead letters go back to their queues once storage answers. */
export const handler = t.handler(
  middy<ScheduledEvent, RedriveOutcome>().use(t.middlewares()).handler(async () => redriveMerges(services())),
);
