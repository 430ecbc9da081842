import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type SealOutcome, sealAll } from '../../shared/files/seal';
import { redactErrors } from '../../shared/log';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('seal');

/** The composition root of `seal`: the market's pages and files state, the files bucket (candle files). */
export function createHandler(platform: Platform<'ddb' | 's3'>) {
  const svc: ServicesOf<'seal'> = { ...coreOf(platform), market: dynamoMarket(tableOf(platform)), files: filesOf(platform) };
  /** The seal schedule (every minute): writes every due candle file of every market once. */
  return t.handler(
    middy<ScheduledEvent, SealOutcome[]>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => sealAll(svc)),
  );
}
