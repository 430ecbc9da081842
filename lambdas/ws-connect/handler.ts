import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { requireEdge } from '../../shared/http/edge';
import { answerUpgrade } from '../../shared/http/upgrade';
import { connectSocket } from '../../shared/live/socket';
import { connectRequest, type WsConnectEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

const t = functionTelemetry('ws-connect');

/** The composition root of `ws-connect`: socket records, accounts, the origin secret. */
export function createHandler(platform: Platform<'ddb' | 'secrets'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'ws-connect'> = {
    ...coreOf(platform),
    connections: new DynamoConnections(table),
    identity: dynamoIdentity(table),
    secrets: platform.secrets(),
  };
  /**
   * `$connect` of the live socket: 403 `edge_only` first for an upgrade that did not come through CloudFront,
   * then 401 / 403 / 400 before the upgrade, else the socket is stored (its record drives `hello`).
   */
  return t.handler(
    middy<WsConnectEvent, APIGatewayProxyResult>()
      .use(t.middlewares())
      .use(redactErrors())
      .handler(async (event) =>
        answerUpgrade(async () => {
          await requireEdge(svc, event.headers);
          await connectSocket(svc, connectRequest(event, true));
        }),
      ),
  );
}
