import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { redactErrors } from '../../shared/log';
import { mergeBatch } from '../../shared/market/merge-batch';
import type { ServicesOf } from '../../shared/services';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('merge');

/** The root of `merge`, on the ports its manifest access grants: the market, settings and accounts, the files bucket, the queues. */
export function createHandler(svc: ServicesOf<'merge'>) {
  /** The merge queues' consumer: each market's FIFO batch merges in order; failures are reported per message. */
  return t.handler(
    middy<SQSEvent, SQSBatchResponse>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler((event) => mergeBatch(svc, event.Records)),
  );
}
