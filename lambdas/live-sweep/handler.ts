import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { sweepSockets } from '../../shared/live/socket';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** The live sweep (every minute): closes sockets whose credential expired (4401) or that lost `live` (4403). */
export const handler = middy<ScheduledEvent, Awaited<ReturnType<typeof sweepSockets>>>().use(redactErrors()).handler(async () => sweepSockets(services()));
