/**
 * The runtime's listening sockets: the one HTTP server that plays API Gateway, CloudFront and the control
 * API on the printed address, and (the `direct` option) a second loopback listener that plays the APIs'
 * own execute-api host. Opened first, so a port in use fails the start before any engine is spawned.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { sendJson } from './http-events';

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];
/** Requests up to this head size reach the gateway, which refuses those past API Gateway's 10240 bytes as AWS does. */
const MAX_LOCAL_HEAD = 4 * 1024 * 1024;

/** Where a request goes; `edge` is false for the direct listener (no origin-verify header, headers as sent). */
export interface Routing {
  onRequest(req: IncomingMessage, res: ServerResponse, edge: boolean): void;
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, edge: boolean): void;
}

/** `routing()` while it is there; before (start-up) or after (stopping), 503 to requests and upgrades: the handlers are not wired. */
export function gated(
  routing: () => { onRequest(req: IncomingMessage, res: ServerResponse, edge: boolean): unknown; onUpgrade: Routing['onUpgrade'] } | null,
): Routing {
  return {
    onRequest: (req, res, edge) => {
      const to = routing();
      if (!to) sendJson(res, 503, { error: 'starting', message: 'the local runtime is starting' });
      else void to.onRequest(req, res, edge);
    },
    onUpgrade: (req, socket, head, edge) => {
      const to = routing();
      if (!to) socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else to.onUpgrade(req, socket, head, edge);
    },
  };
}

export interface Listeners {
  server: Server;
  direct: Server | null;
  /** `http://host:port`, the printed address. */
  base: string;
  /** The direct listener's address ('' without it). */
  directBase: string;
  /** `Host` values of the control API: the printed loopback address and `localhost`, with the port. */
  controlHosts: string[];
}

/** Opens the listeners on loopback (refusing any other host); rejects with the server's error (EADDRINUSE, EACCES). */
export async function openListeners(host: string, port: number, direct: boolean, routing: Routing): Promise<Listeners> {
  if (!LOOPBACK_HOSTS.includes(host)) throw new Error(`the local runtime listens on loopback only (127.0.0.1 or localhost), not ${host}`);
  const server = serverFor(routing, true);
  const listening: Listeners = { server, direct: null, base: '', directBase: '', controlHosts: [] };
  const bound = await listen(server, port, host);
  listening.base = `http://${host}:${bound}`;
  listening.controlHosts = LOOPBACK_HOSTS.map((h) => `${h}:${bound}`);
  if (direct) {
    listening.direct = serverFor(routing, false);
    try {
      listening.directBase = `http://${host}:${await listen(listening.direct, 0, host)}`;
    } catch (err) {
      await closeListeners([server]);
      throw err;
    }
  }
  return listening;
}

/** Stops accepting connections; requests in flight finish. */
export async function closeListeners(servers: Array<Server | null | undefined>): Promise<void> {
  await Promise.all(
    servers.map((server) => {
      if (!server?.listening) return undefined;
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      return closed;
    }),
  );
}

// Node's own 16 KB header limit would answer 431 with no body; the gateway applies API Gateway's quota itself.
function serverFor(routing: Routing, edge: boolean): Server {
  const server = createServer({ maxHeaderSize: MAX_LOCAL_HEAD }, (req, res) => routing.onRequest(req, res, edge));
  server.on('upgrade', (req, socket, head) => routing.onUpgrade(req, socket, head, edge));
  return server;
}

/** Listens on `port` (0: any free one) and resolves the port; rejects with the server's error (EADDRINUSE, EACCES). */
function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolvePort(typeof address === 'object' && address ? address.port : 0);
    });
  });
}
