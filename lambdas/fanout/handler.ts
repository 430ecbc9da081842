import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fanout } from '../../shared/live/fanout';
import type { ChangeBatch } from '../../shared/ports/changes';
import type { ServicesOf } from '../../shared/services';
import { decodeChangeRecords } from '../../shared/store/change-stream';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry, metric } from '../../shared/telemetry/function-telemetry';
import { METRIC } from '../../shared/telemetry/metric-names';

const t = functionTelemetry('fanout');

/** The root of `fanout`, on the ports its manifest access grants: socket records, the market's state, `@connections`. */
export function createHandler(svc: ServicesOf<'fanout'>) {
  /**
   * The table stream's consumer: `hello`, `ah`, `sealed`, `alert`, `roles` and device closes (see shared/live/fanout.ts).
   * Its events are the stream's records decoded, or already events when the memory change feed delivers them (the local memory mode).
   */
  return backgroundRoot<DynamoDBStreamEvent | ChangeBatch, void>(t, async (event) => {
    const started = performance.now();
    const unreadable = (err: unknown) =>
      svc.log('warn', 'fanout: unreadable stream record skipped', { error: err instanceof Error ? err.message : String(err) });
    await fanout(svc, 'changes' in event ? event.changes : decodeChangeRecords(event.Records, unreadable));
    metric(METRIC.fanoutDurationMs, Math.round(performance.now() - started));
  });
}
