/** `@connections` of the live socket's API (functions whose manifest access names `connections`). */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Config } from '../config';
import type { SocketsPort } from '../ports/connections';
import { ApiGatewaySockets } from '../store/api-gateway-sockets';
import { connectionsClient } from '../store/clients/connections';
import type { ClientConfig } from '../store/clients/options';
import { tracedClient } from '../telemetry/tracing';

/** The sockets port over an `@connections` client. */
export function socketsOver(client: ApiGatewayManagementApiClient, config: Pick<Config, 'env' | 'localGateway'>): SocketsPort {
  // Only the local runtime's gateway reads a close code; API Gateway would ignore it.
  const local = config.env === 'dev' && config.localGateway;
  return new ApiGatewaySockets(client, local);
}

/** The Lambda entry's factory (`awsPlatform({ sockets: apiGatewaySockets, … })`): the port over a traced client. */
export const apiGatewaySockets = (config: ClientConfig & Pick<Config, 'env' | 'localGateway'>): SocketsPort =>
  socketsOver(tracedClient(connectionsClient(config)), config);
