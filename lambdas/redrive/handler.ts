import type { ScheduledEvent } from 'aws-lambda';
import { type RedriveOutcome, redriveMerges } from '../../shared/market/merge-redrive';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('redrive');

/** The root of `redrive`, on the ports its manifest access grants: the market (a probe), the files bucket, the queues. */
export function createHandler(svc: ServicesOf<'redrive'>) {
  /** The redrive schedule (every 5 minutes): merge dead letters go back to their queues once storage answers. An error leaving it is redacted, as every root's is. */
  return backgroundRoot<ScheduledEvent, RedriveOutcome>(t, async () => redriveMerges(svc));
}
