import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { redactErrors } from '../../shared/log';
import { mergeBatch } from '../../shared/market/merge-batch';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoSettings } from '../../shared/store/dynamo-settings';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('merge');

/** The composition root of `merge`: the market, settings and accounts, the files bucket, the queues. */
export function createHandler(platform: Platform<'ddb' | 's3' | 'queues'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'merge'> = {
    ...coreOf(platform),
    market: dynamoMarket(table),
    settings: dynamoSettings(table),
    identity: dynamoIdentity(table),
    files: filesOf(platform),
    queues: platform.queues(),
  };
  /** The merge queues' consumer: each market's FIFO batch merges in order; failures are reported per message. */
  return t.handler(
    middy<SQSEvent, SQSBatchResponse>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler((event) => mergeBatch(svc, event.Records)),
  );
}
