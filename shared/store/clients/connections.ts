/** The API Gateway management API client (`@connections`) of a configuration. */
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { type ClientConfig, pooled } from './options';

export function connectionsClient(config: ClientConfig): ApiGatewayManagementApiClient {
  // A fan-out posts to up to 2000 sockets of a hub at once (shared/store/connection-poster.ts, on this client's handler):
  // the SDK's default pool of 50 would queue them.
  return new ApiGatewayManagementApiClient({
    region: config.region,
    endpoint: config.connectionsEndpoint,
    credentials: config.credentials,
    requestHandler: pooled(500),
  });
}
