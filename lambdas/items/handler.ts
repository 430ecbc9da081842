import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { rebuildCurrentItems } from '../../shared/items/publish';
import { redactErrors } from '../../shared/log';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('items');

/** The composition root of `items`: the catalogue, the market rows (which keys are observed) and the files bucket. */
export function createHandler(platform: Platform<'ddb' | 's3'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'items'> = { ...coreOf(platform), catalogue: dynamoCatalogue(table), market: dynamoMarket(table), files: filesOf(platform) };
  /** The items schedule (every 10 minutes): rebuilds the current build's merged item files when due. */
  return t.handler(
    middy<ScheduledEvent, { build: string | null; hash: string | null }>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => rebuildCurrentItems(svc)),
  );
}
