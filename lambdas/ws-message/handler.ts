import middy from '@middy/core';
import { socketMessage } from '../../shared/live/socket';
import { sourceIpOf, type WsEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { socketsOf } from '../../shared/platform/sockets';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-message');

/** The composition root of `ws-message`: socket records, accounts, `@connections`. */
export function createHandler(platform: Platform<'ddb' | 'connections'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'ws-message'> = {
    ...coreOf(platform),
    connections: new DynamoConnections(table),
    identity: dynamoIdentity(table),
    sockets: socketsOf(platform),
  };
  /** `$default` of the live socket: `{t: "auth", token}` renewals; anything else is `bad_message`. */
  return t.handler(
    middy<WsEvent, { statusCode: number }>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async (event) => {
        await socketMessage(svc, event.requestContext.connectionId, event.body, sourceIpOf(event));
        return { statusCode: 200 };
      }),
  );
}
