import middy from '@middy/core';
import { socketMessage } from '../../shared/live/socket';
import { sourceIpOf, type WsEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import type { ServicesOf } from '../../shared/services';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-message');

/** The root of `ws-message`, on the ports its manifest access grants: socket records, accounts, `@connections`. */
export function createHandler(svc: ServicesOf<'ws-message'>) {
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
