/**
 * Sending to live sockets (`@connections`, shared/ports/connections.ts). A socket that answers 410 is forgotten.
 * Closing: API Gateway cannot choose a close code, so the server first tells the client why (`{t: "error",
 * error: "unauthenticated"}` for 4401, a `roles` message without `live` for 4403) and then deletes the connection.
 */

import type { Log } from '../log';
import type { ConnectionsPort, SocketRef, SocketsPort } from '../ports/connections';
import { metric } from '../telemetry/function-telemetry';
import { METRIC } from '../telemetry/metric-names';

/** Close codes (spec: the credential stopped being valid / the caller lost `live`). */
export const CLOSE_UNAUTHENTICATED = 4401;
export const CLOSE_FORBIDDEN = 4403;
/** A socket that floods the server with messages (RFC 6455 1008: policy violation). */
export const CLOSE_POLICY = 1008;

const PARALLEL = 128;

/** What sending needs: the sockets, their records (a gone socket is forgotten) and the log. */
export interface SendDeps {
  sockets: SocketsPort;
  connections: ConnectionsPort;
  log: Log;
}

/** Posts one message (its text, or the bytes of it); false when the socket is gone (then it is forgotten). */
export async function send(deps: Pick<SendDeps, 'sockets' | 'connections'>, c: SocketRef, text: string | Uint8Array): Promise<boolean> {
  if ((await deps.sockets.post(c.connectionId, typeof text === 'string' ? Buffer.from(text) : text)) === 'sent') return true;
  await deps.connections.remove(c);
  return false;
}

/**
 * Sends each socket its message (null: nothing for it), many at a time; one failure never stops the others.
 * Sockets given the same text share one body (encoded once; the poster hashes each body once: post-signer.ts).
 */
export async function sendAll(
  deps: SendDeps,
  targets: ReadonlyArray<readonly [SocketRef, string | null]>,
): Promise<{ sent: number; gone: number; failed: number }> {
  const counts = { sent: 0, gone: 0, failed: 0 };
  const bodies = new Map<string, Uint8Array>();
  const bodyOf = (text: string): Uint8Array => {
    let body = bodies.get(text);
    if (!body) {
      body = Buffer.from(text);
      bodies.set(text, body);
    }
    return body;
  };
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const [c, text] = targets[next++];
      if (text === null) continue;
      try {
        if (await send(deps, c, bodyOf(text))) counts.sent++;
        else counts.gone++;
      } catch (err) {
        counts.failed++;
        deps.log('warn', 'live: a message could not be sent', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, targets.length) }, worker));
  if (counts.sent + counts.gone + counts.failed > 0) {
    metric(METRIC.fanoutPosts, counts.sent + counts.gone + counts.failed);
    metric(METRIC.fanoutGone, counts.gone);
  }
  return counts;
}

/** Closes a socket with a code (after its notice, when there is one) and forgets it. */
export async function closeConnection(deps: Pick<SendDeps, 'sockets' | 'connections'>, c: SocketRef, code: number, notice?: string): Promise<void> {
  if (notice === undefined || (await send(deps, c, notice).catch(() => true))) await deps.sockets.close(c.connectionId, code);
  await deps.connections.remove(c);
}
