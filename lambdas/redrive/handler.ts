import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type RedriveOutcome, redriveMerges } from '../../shared/market/merge-redrive';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('redrive');

/** The composition root of `redrive`: the market (a probe), the files bucket, the queues. */
export function createHandler(platform: Platform<'ddb' | 's3' | 'queues'>) {
  const svc: ServicesOf<'redrive'> = { ...coreOf(platform), market: dynamoMarket(tableOf(platform)), files: filesOf(platform), queues: platform.queues() };
  /** The redrive schedule (every 5 minutes): merge dead letters go back to their queues once storage answers. */
  return t.handler(
    middy<ScheduledEvent, RedriveOutcome>()
      .use(t.middlewares())
      .handler(async () => redriveMerges(svc)),
  );
}
