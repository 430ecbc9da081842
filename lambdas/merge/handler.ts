import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mergeBatch } from '../../shared/market/merge-batch';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('merge');

/** The merge queues' consumer: each market's FIFO batch merges in order; failures are reported per message. */
export const handler = t.handler(
  middy<SQSEvent, SQSBatchResponse>().use(t.middlewares()).use(redactErrors()).handler((event) => mergeBatch(services(), event.Records)),
);
