import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { retainFiles } from '../../shared/files/file-retention';
import { runRetention } from '../../shared/market/market-retention';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** Every 6 hours: spec Retention for every market (each market runs at most every 6 hours), then the files bucket's. */
export const handler = middy<ScheduledEvent, void>().use(redactErrors()).handler(async () => {
  const svc = services();
  const results = await runRetention(svc);
  svc.log('info', 'retention', { markets: results.filter((r) => r.ran) });
  await retainFiles(svc);
});
