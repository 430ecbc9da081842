import middy from '@middy/core';
import { disconnectSocket } from '../../shared/live/socket';
import type { WsEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import type { Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-disconnect');

/** The composition root of `ws-disconnect`: the table's socket records, nothing else. */
export function createHandler(platform: Platform<'ddb'>) {
  const svc: ServicesOf<'ws-disconnect'> = { connections: new DynamoConnections(tableOf(platform)) };
  /** `$disconnect` of the live socket: the socket is forgotten and its hub's place given back. */
  return t.handler(
    middy<WsEvent, { statusCode: number }>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async (event) => {
        await disconnectSocket(svc, event.requestContext.connectionId);
        return { statusCode: 200 };
      }),
  );
}
