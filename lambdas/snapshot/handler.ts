import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type WrittenSnapshot, writeAllSnapshots } from '../../shared/files/snapshot-files';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** The snapshot schedule (hourly): the current hour's snapshot and recent-changes files and their pointers. */
export const handler = middy<ScheduledEvent, WrittenSnapshot[]>().use(redactErrors()).handler(async () => writeAllSnapshots(services()));
