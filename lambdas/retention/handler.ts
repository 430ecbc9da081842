import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { retainFiles } from '../../shared/files/file-retention';
import { runRetention } from '../../shared/market/market-retention';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('retention');

/** Every 6 hours: spec Retention for every market (each market runs at most every 6 hours), then the files bucket's. */
export const handler = t.handler(
  middy<ScheduledEvent, void>().use(t.middlewares()).use(redactErrors()).handler(async () => {
    const svc = services();
    const results = await runRetention(svc);
    svc.log('info', 'retention', { markets: results.filter((r) => r.ran) });
    await retainFiles(svc);
  }),
);
