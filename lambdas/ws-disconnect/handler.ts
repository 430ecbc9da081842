import { disconnectSocket } from '../../shared/live/socket';
import type { WsEvent } from '../../shared/live/ws-events';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-disconnect');

/** The root of `ws-disconnect`, on the ports its manifest access grants: the table's socket records, nothing else. */
export function createHandler(svc: ServicesOf<'ws-disconnect'>) {
  /** `$disconnect` of the live socket: the socket is forgotten and its hub's place given back. */
  return backgroundRoot<WsEvent, { statusCode: number }>(t, async (event) => {
    await disconnectSocket(svc, event.requestContext.connectionId);
    return { statusCode: 200 };
  });
}
