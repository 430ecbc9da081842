import type { ScheduledEvent } from 'aws-lambda';
import { retainFiles } from '../../shared/files/file-retention';
import { expireCatalogueReports } from '../../shared/items/catalogue-expiry';
import { runRetention } from '../../shared/market/market-retention';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('retention');

/** The root of `retention`, on the ports its manifest access grants: the market, the uploads' quarantine, the catalogue's reports, the files bucket. */
export function createHandler(svc: ServicesOf<'retention'>) {
  /** Every 6 hours: spec Retention for every market (each market runs at most every 6 hours), the files bucket's, then expired catalogue accounts. */
  return backgroundRoot<ScheduledEvent, void>(t, async () => {
    const results = await runRetention(svc);
    svc.log('info', 'retention', { markets: results.filter((r) => r.ran) });
    await retainFiles(svc);
    await expireCatalogueReports(svc);
  });
}
