import type { ScheduledEvent } from 'aws-lambda';
import { rebuildCurrentItems } from '../../shared/items/publish';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('items');

/** The root of `items`, on the ports its manifest access grants: the catalogue, the market rows (which keys are observed) and the files bucket. */
export function createHandler(svc: ServicesOf<'items'>) {
  /** The items schedule (every 10 minutes): rebuilds the current build's merged item files when due. */
  return backgroundRoot<ScheduledEvent, { build: string | null; hash: string | null }>(t, async () => rebuildCurrentItems(svc));
}
