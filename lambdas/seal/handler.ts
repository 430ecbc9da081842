import type { ScheduledEvent } from 'aws-lambda';
import { type SealOutcome, sealAll } from '../../shared/files/seal';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('seal');

/** The root of `seal`, on the ports its manifest access grants: the market's pages and files state, the files bucket (candle files). */
export function createHandler(svc: ServicesOf<'seal'>) {
  /** The seal schedule (every minute): writes every due candle file of every market once. */
  return backgroundRoot<ScheduledEvent, SealOutcome[]>(t, async () => sealAll(svc));
}
