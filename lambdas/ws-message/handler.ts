import middy from '@middy/core';
import { socketMessage } from '../../shared/live/socket';
import { sourceIpOf, type WsEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('ws-message');

/** `$default` of the live socket: `{t: "auth", token}` renewals; anything else is `bad_message`. */
export const handler = t.handler(
  middy<WsEvent, { statusCode: number }>().use(t.middlewares()).use(redactErrors()).handler(async (event) => {
    await socketMessage(services(), event.requestContext.connectionId, event.body, sourceIpOf(event));
    return { statusCode: 200 };
  }),
);
