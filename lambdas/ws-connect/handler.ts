import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { requireEdge } from '../../shared/http/edge';
import { answerUpgrade } from '../../shared/http/upgrade';
import { connectSocket } from '../../shared/live/socket';
import { connectRequest, type WsConnectEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('ws-connect');

/**
 * `$connect` of the live socket: 403 `edge_only` first for an upgrade that did not come through CloudFront,
 * then 401 / 403 / 400 before the upgrade, else the socket is stored (its record drives `hello`).
 */
export const handler = t.handler(
  middy<WsConnectEvent, APIGatewayProxyResult>().use(t.middlewares())
    .use(redactErrors())
    .handler(async (event) => {
      const svc = services();
      return answerUpgrade(async () => {
        await requireEdge(svc, event.headers);
        await connectSocket(svc, connectRequest(event, true));
      });
    }),
);
