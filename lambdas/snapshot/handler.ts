import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { type WrittenSnapshot, writeAllSnapshots } from '../../shared/files/snapshot-files';
import { redactErrors } from '../../shared/log';
import { filesOf, workOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('snapshot');

/** The composition root of `snapshot`: the market, the catalogue, the files and work buckets. */
export function createHandler(platform: Platform<'ddb' | 's3'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'snapshot'> = {
    ...coreOf(platform),
    market: dynamoMarket(table),
    catalogue: dynamoCatalogue(table),
    files: filesOf(platform),
    work: workOf(platform),
  };
  /** The snapshot schedule (hourly): the current hour's snapshot and recent-changes files and their pointers. */
  return t.handler(
    middy<ScheduledEvent, WrittenSnapshot[]>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => writeAllSnapshots(svc)),
  );
}
