import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { sweepSockets } from '../../shared/live/socket';
import { redactErrors } from '../../shared/log';
import type { ServicesOf } from '../../shared/services';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('live-sweep');

/** The root of `live-sweep`, on the ports its manifest access grants: socket records, accounts, `@connections`. */
export function createHandler(svc: ServicesOf<'live-sweep'>) {
  /** The live sweep (every minute): closes sockets whose credential expired (4401) or that lost `live` (4403). */
  return t.handler(
    middy<ScheduledEvent, Awaited<ReturnType<typeof sweepSockets>>>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => sweepSockets(svc)),
  );
}
