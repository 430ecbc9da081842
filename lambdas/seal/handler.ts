import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type SealOutcome, sealAll } from '../../shared/files/seal';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('seal');

/** The seal schedule (every minute): writes every due candle file of every market once. */
export const handler = t.handler(
  middy<ScheduledEvent, SealOutcome[]>().use(t.middlewares()).use(redactErrors()).handler(async () => sealAll(services())),
);
