import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type RedriveOutcome, redriveMerges } from '../../shared/market/merge-redrive';
import { services } from '../../shared/services';

/** The redrive schedule (every 5 minutes): merge dead letters go back to their queues once storage answers. */
export const handler = middy<ScheduledEvent, RedriveOutcome>().handler(async () => redriveMerges(services()));
