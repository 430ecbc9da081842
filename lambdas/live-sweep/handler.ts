import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { sweepSockets } from '../../shared/live/socket';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('live-sweep');

/** The live sweep (every minute): closes sockets whose credential expired (4401) or that lost `live` (4403). */
export const handler = t.handler(
  middy<ScheduledEvent, Awaited<ReturnType<typeof sweepSockets>>>().use(t.middlewares()).use(redactErrors()).handler(async () => sweepSockets(services())),
);
