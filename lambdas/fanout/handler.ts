import middy from '@middy/core';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fanout } from '../../shared/live/fanout';
import { redactErrors } from '../../shared/log';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { socketsOf } from '../../shared/platform/sockets';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { decodeChangeRecords } from '../../shared/store/change-stream';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { functionTelemetry, metric } from '../../shared/telemetry/function-telemetry';
import { METRIC } from '../../shared/telemetry/metric-names';

const t = functionTelemetry('fanout');

/** The composition root of `fanout`: socket records, the market's state, `@connections`. */
export function createHandler(platform: Platform<'ddb' | 'connections'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'fanout'> = {
    ...coreOf(platform),
    connections: new DynamoConnections(table),
    market: dynamoMarket(table),
    sockets: socketsOf(platform),
  };
  /** The table stream's consumer: `hello`, `ah`, `sealed`, `alert`, `roles` and device closes (see shared/live/fanout.ts). */
  return t.handler(
    middy<DynamoDBStreamEvent, void>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async (event) => {
        const started = performance.now();
        const unreadable = (err: unknown) =>
          svc.log('warn', 'fanout: unreadable stream record skipped', { error: err instanceof Error ? err.message : String(err) });
        await fanout(svc, decodeChangeRecords(event.Records, unreadable));
        metric(METRIC.fanoutDurationMs, Math.round(performance.now() - started));
      }),
  );
}
