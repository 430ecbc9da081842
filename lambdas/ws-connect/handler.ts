import type { APIGatewayProxyResult } from 'aws-lambda';
import { requireEdge } from '../../shared/http/edge';
import { answerUpgrade } from '../../shared/http/upgrade';
import { connectSocket } from '../../shared/live/socket';
import { connectRequest, type WsConnectEvent } from '../../shared/live/ws-events';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-connect');

/** The root of `ws-connect`, on the ports its manifest access grants: socket records, accounts, the origin secret. */
export function createHandler(svc: ServicesOf<'ws-connect'>) {
  /**
   * `$connect` of the live socket: 403 `edge_only` first for an upgrade that did not come through CloudFront,
   * then 401 / 403 / 400 before the upgrade, else the socket is stored (its record drives `hello`).
   */
  return backgroundRoot<WsConnectEvent, APIGatewayProxyResult>(t, async (event) =>
    answerUpgrade(async () => {
      await requireEdge(svc, event.headers);
      await connectSocket(svc, connectRequest(event, true));
    }),
  );
}
