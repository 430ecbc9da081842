import middy from '@middy/core';
import { disconnectSocket } from '../../shared/live/socket';
import type { WsEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('ws-disconnect');

/** `$disconnect` of the live socket: the socket is forgotten and its hub's place given back. */
export const handler = t.handler(
  middy<WsEvent, { statusCode: number }>().use(t.middlewares()).use(redactErrors()).handler(async (event) => {
    await disconnectSocket(services(), event.requestContext.connectionId);
    return { statusCode: 200 };
  }),
);
