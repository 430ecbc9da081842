/** `@connections` of the live socket's API (functions whose manifest access names `connections`). */
import type { SocketsPort } from '../ports/connections';
import { ApiGatewaySockets } from '../store/api-gateway-sockets';
import type { Platform } from './platform';

export function socketsOf(p: Platform<'connections'>): SocketsPort {
  // Only the local runtime's gateway reads a close code; API Gateway would ignore it.
  const local = p.config.env === 'dev' && p.config.endpoints.dynamodb !== undefined;
  return new ApiGatewaySockets(p.connections(), local);
}
