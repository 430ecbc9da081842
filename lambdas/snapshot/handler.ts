import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type WrittenSnapshot, writeAllSnapshots } from '../../shared/files/snapshot-files';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('snapshot');

/** The snapshot schedule (hourly): the current hour's snapshot and recent-changes files and their pointers. */
export const handler = t.handler(
  middy<ScheduledEvent, WrittenSnapshot[]>().use(t.middlewares()).use(redactErrors()).handler(async () => writeAllSnapshots(services())),
);
