import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { rebuildCurrentItems } from '../../shared/items/publish';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** The items schedule (every 10 minutes): rebuilds the current build's merged item files when due. */
export const handler = middy<ScheduledEvent, { build: string | null; hash: string | null }>().use(redactErrors()).handler(async () => rebuildCurrentItems(services()));
