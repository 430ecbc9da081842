import type { ScheduledEvent } from 'aws-lambda';
import { type WrittenSnapshot, writeAllSnapshots } from '../../shared/files/snapshot-files';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('snapshot');

/** The root of `snapshot`, on the ports its manifest access grants: the market, the catalogue, the files and work buckets. */
export function createHandler(svc: ServicesOf<'snapshot'>) {
  /** The snapshot schedule (hourly): the current hour's snapshot and recent-changes files and their pointers. */
  return backgroundRoot<ScheduledEvent, WrittenSnapshot[]>(t, async () => writeAllSnapshots(svc));
}
