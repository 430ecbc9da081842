import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { sweepSockets } from '../../shared/live/socket';
import { redactErrors } from '../../shared/log';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { socketsOf } from '../../shared/platform/sockets';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('live-sweep');

/** The composition root of `live-sweep`: socket records, accounts, `@connections`. */
export function createHandler(platform: Platform<'ddb' | 'connections'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'live-sweep'> = {
    ...coreOf(platform),
    connections: new DynamoConnections(table),
    identity: dynamoIdentity(table),
    sockets: socketsOf(platform),
  };
  /** The live sweep (every minute): closes sockets whose credential expired (4401) or that lost `live` (4403). */
  return t.handler(
    middy<ScheduledEvent, Awaited<ReturnType<typeof sweepSockets>>>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async () => sweepSockets(svc)),
  );
}
