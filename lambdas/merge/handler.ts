import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mergeBatch } from '../../shared/market/merge-batch';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('merge');

/** The root of `merge`, on the ports its manifest access grants: the market, settings and accounts, the files bucket, the queues. */
export function createHandler(svc: ServicesOf<'merge'>) {
  /** The merge queues' consumer: each market's FIFO batch merges in order; failures are reported per message. */
  return backgroundRoot<SQSEvent, SQSBatchResponse>(t, (event) => mergeBatch(svc, event.Records));
}
