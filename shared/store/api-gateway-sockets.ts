/**
 * The API Gateway adapter of `@connections` (shared/ports/connections.ts SocketsPort): posts through the signed
 * fast path (connection-poster.ts), closes with DeleteConnection. API Gateway cannot choose a close code; the
 * local gateway takes it from a local-only `x-close-code` header, which only a local deployment sends.
 */
import { type ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException } from '@aws-sdk/client-apigatewaymanagementapi';
import type { PostResult, SocketsPort } from '../ports/connections';
import { ConnectionPoster } from './connection-poster';
import { atPort } from './dependency-failure';

const isGone = (err: unknown): boolean =>
  err instanceof GoneException ||
  (err as { name?: string }).name === 'GoneException' ||
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410;

export class ApiGatewaySockets implements SocketsPort {
  private readonly poster: ConnectionPoster;

  constructor(
    private readonly client: ApiGatewayManagementApiClient,
    /** Send the close code the local gateway reads (the local runtime only). */
    private readonly localCloseCode: boolean,
  ) {
    this.poster = new ConnectionPoster(client);
    // biome-ignore lint/correctness/noConstructorReturn: the port its callers get is this adapter behind atPort
    return atPort('sockets', this);
  }

  post(connectionId: string, data: Uint8Array): Promise<PostResult> {
    return this.poster.post(connectionId, data);
  }

  async close(connectionId: string, code: number): Promise<void> {
    const command = new DeleteConnectionCommand({ ConnectionId: connectionId });
    if (this.localCloseCode) {
      command.middlewareStack.add(
        (next) => async (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (request.headers) request.headers['x-close-code'] = String(code);
          return next(args);
        },
        { step: 'build', name: 'localCloseCode' },
      );
    }
    try {
      await this.client.send(command);
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }
}
