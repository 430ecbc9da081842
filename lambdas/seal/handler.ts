import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type SealOutcome, sealAll } from '../../shared/files/seal';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** The seal schedule (every minute): writes every due candle file of every market once. */
export const handler = middy<ScheduledEvent, SealOutcome[]>().use(redactErrors()).handler(async () => sealAll(services()));
