import middy from '@middy/core';
import { disconnectSocket } from '../../shared/live/socket';
import type { WsEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** `$disconnect` of the live socket: the socket is forgotten and its hub's place given back. */
export const handler = middy<WsEvent, { statusCode: number }>().use(redactErrors()).handler(async (event) => {
  await disconnectSocket(services(), event.requestContext.connectionId);
  return { statusCode: 200 };
});
