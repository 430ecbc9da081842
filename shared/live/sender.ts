/**
 * Sending to live sockets through the API Gateway management API (`@connections`). A socket that answers
 * 410 (`GoneException`) is forgotten. Closing: API Gateway cannot choose a close code, so the server first
 * tells the client why (`{t: "error", error: "unauthenticated"}` for 4401, a `roles` message without `live`
 * for 4403) and then deletes the connection; the local gateway also takes the code itself from a local-only
 * `x-close-code` header.
 */
import { type ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Services } from '../services';
import { removeConnection, type SocketRef } from './connection-store';
import { ConnectionPoster } from './poster';

/** Close codes (spec: the credential stopped being valid / the caller lost `live`). */
export const CLOSE_UNAUTHENTICATED = 4401;
export const CLOSE_FORBIDDEN = 4403;
/** A socket that floods the server with messages (RFC 6455 1008: policy violation). */
export const CLOSE_POLICY = 1008;

const PARALLEL = 128;

const isGone = (err: unknown): boolean => err instanceof GoneException || (err as { name?: string }).name === 'GoneException' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410;

/** Only the local runtime's gateway reads the close code header; API Gateway would ignore it. */
const isLocalGateway = (svc: Services): boolean => svc.config.env === 'dev' && svc.config.endpoints.dynamodb !== undefined;

const posters = new WeakMap<ApiGatewayManagementApiClient, ConnectionPoster>();

function posterOf(client: ApiGatewayManagementApiClient): ConnectionPoster {
  let p = posters.get(client);
  if (!p) {
    p = new ConnectionPoster(client);
    posters.set(client, p);
  }
  return p;
}

/** Posts one message; false when the socket is gone (then it is forgotten). */
export async function send(svc: Services, c: SocketRef, text: string): Promise<boolean> {
  if ((await posterOf(svc.connections).post(c.connectionId, Buffer.from(text))) === 'sent') return true;
  await removeConnection(svc, c);
  return false;
}

/** Sends each socket its message (null: nothing for it), many at a time; one failure never stops the others. */
export async function sendAll(svc: Services, targets: ReadonlyArray<readonly [SocketRef, string | null]>): Promise<{ sent: number; gone: number; failed: number }> {
  const counts = { sent: 0, gone: 0, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const [c, text] = targets[next++];
      if (text === null) continue;
      try {
        if (await send(svc, c, text)) counts.sent++;
        else counts.gone++;
      } catch (err) {
        counts.failed++;
        svc.log('warn', 'live: a message could not be sent', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, targets.length) }, worker));
  return counts;
}

/** Closes a socket with a code (after its notice, when there is one) and forgets it. */
export async function closeConnection(svc: Services, c: SocketRef, code: number, notice?: string): Promise<void> {
  if (notice === undefined || (await send(svc, c, notice).catch(() => true))) {
    const command = new DeleteConnectionCommand({ ConnectionId: c.connectionId });
    if (isLocalGateway(svc)) {
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
      await svc.connections.send(command);
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }
  await removeConnection(svc, c);
}
