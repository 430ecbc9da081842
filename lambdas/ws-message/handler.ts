import { socketMessage } from '../../shared/live/socket';
import { sourceIpOf, type WsEvent } from '../../shared/live/ws-events';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-message');

/** The root of `ws-message`, on the ports its manifest access grants: socket records, accounts, `@connections`. */
export function createHandler(svc: ServicesOf<'ws-message'>) {
  /** `$default` of the live socket: `{t: "auth", token}` renewals; anything else is `bad_message`. */
  return backgroundRoot<WsEvent, { statusCode: number }>(t, async (event) => {
    await socketMessage(svc, event.requestContext.connectionId, event.body, sourceIpOf(event));
    return { statusCode: 200 };
  });
}
