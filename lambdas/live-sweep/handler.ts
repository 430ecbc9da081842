import type { ScheduledEvent } from 'aws-lambda';
import { sweepSockets } from '../../shared/live/socket';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('live-sweep');

/** The root of `live-sweep`, on the ports its manifest access grants: socket records, accounts, `@connections`. */
export function createHandler(svc: ServicesOf<'live-sweep'>) {
  /** The live sweep (every minute): closes sockets whose credential expired (4401) or that lost `live` (4403). */
  return backgroundRoot<ScheduledEvent, Awaited<ReturnType<typeof sweepSockets>>>(t, async () => sweepSockets(svc));
}
