import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { retainFiles } from '../../shared/files/file-retention';
import { expireCatalogueReports } from '../../shared/items/catalogue-expiry';
import { redactErrors } from '../../shared/log';
import { runRetention } from '../../shared/market/market-retention';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoUploads } from '../../shared/store/dynamo-uploads';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('retention');

/** The composition root of `retention`: the market, the uploads' quarantine, the catalogue's reports, the files bucket. */
export function createHandler(platform: Platform<'ddb' | 's3'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'retention'> = {
    ...coreOf(platform),
    market: dynamoMarket(table),
    uploads: dynamoUploads(table),
    catalogue: dynamoCatalogue(table),
    files: filesOf(platform),
  };
  /** Every 6 hours: spec Retention for every market (each market runs at most every 6 hours), the files bucket's, then expired catalogue accounts. */
  return t.handler(
    middy<ScheduledEvent, void>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => {
        const results = await runRetention(svc);
        svc.log('info', 'retention', { markets: results.filter((r) => r.ran) });
        await retainFiles(svc);
        await expireCatalogueReports(svc);
      }),
  );
}
