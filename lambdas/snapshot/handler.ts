import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type WrittenSnapshot, writeAllSnapshots } from '../../shared/files/snapshot-files';
import { redactErrors } from '../../shared/log';
import type { ServicesOf } from '../../shared/services';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('snapshot');

/** The root of `snapshot`, on the ports its manifest access grants: the market, the catalogue, the files and work buckets. */
export function createHandler(svc: ServicesOf<'snapshot'>) {
  /** The snapshot schedule (hourly): the current hour's snapshot and recent-changes files and their pointers. */
  return t.handler(
    middy<ScheduledEvent, WrittenSnapshot[]>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => writeAllSnapshots(svc)),
  );
}
