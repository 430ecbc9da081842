/**
 * `@connections`: one contract, run against the API Gateway adapter talking to the local gateway's management
 * endpoint (a real WebSocket on the other end), against the local gateway's own sockets port (the memory mode's
 * `@connections`, no HTTP) and against the in-memory fake.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveGateway } from '../../lib/local/gateways/live-gateway';
import type { SocketsPort } from '../../shared/ports/connections';
import { ApiGatewaySockets } from '../../shared/store/api-gateway-sockets';
import { connectionsClient } from '../../shared/store/clients/connections';
import { MemorySockets } from '../../shared/store/memory/connections';
import { TEST_WAIT_MS } from '../support/live-client';

interface Opened {
  id: string;
  /** Messages the client received, once it has `n` of them. */
  received(n: number): Promise<string[]>;
  /** The close code the client saw (null while open). */
  closedWith(): Promise<number | null>;
}

interface Made {
  sockets: SocketsPort;
  open(): Promise<Opened>;
  stop(): Promise<void>;
}

/**
 * Waits for something the other end of a real socket does (network I/O, not service time), as long as a live
 * message may take on a loaded machine ({@link TEST_WAIT_MS}); it returns as soon as it is done.
 */
async function until<T>(read: () => T, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200 && !done(read()); i++) await new Promise((r) => setImmediate(r));
  const deadline = Date.now() + TEST_WAIT_MS;
  while (!done(read()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return read();
}

/** The local gateway with real WebSocket clients, reached through the management API (`viaHttp`) or its own sockets port. */
async function gatewayVariant(viaHttp: boolean): Promise<Made> {
  const connected: string[] = [];
  const gateway = new LiveGateway(
    'local',
    async (fn, event) => {
      if (fn === 'ws-connect') connected.push((event as { requestContext: { connectionId: string } }).requestContext.connectionId);
      return { statusCode: 200 };
    },
    { connect: 'ws-connect', message: 'ws-message', disconnect: 'ws-disconnect' },
    () => undefined,
  );
  const server = createServer((req, res) => {
    const m = /^\/local\/@connections\/([^/]+)$/.exec(req.url ?? '');
    if (m) void gateway.manage(req, res, decodeURIComponent(m[1]));
    else res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket, head) => void gateway.upgrade(req, socket, head, new URL(req.url ?? '/', 'http://x'), null));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  // The gateway alone checks no signature; any key signs (the local runtime's functions sign with their own).
  const client = connectionsClient({
    region: 'us-east-1',
    endpoints: { dynamodb: 'http://local' },
    connectionsEndpoint: `http://127.0.0.1:${port}/local`,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const clients: WebSocket[] = [];
  return {
    sockets: viaHttp ? new ApiGatewaySockets(client, true) : gateway.sockets,
    async open() {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/live`);
      clients.push(ws);
      const messages: string[] = [];
      let code: number | null = null;
      ws.on('message', (d) => messages.push(d.toString()));
      ws.on('close', (c) => {
        code = c;
      });
      await new Promise((r) => ws.once('open', r));
      return {
        id: connected[connected.length - 1],
        received: (n) =>
          until(
            () => messages,
            (m) => m.length >= n,
          ),
        closedWith: () =>
          until(
            () => code,
            (c) => c !== null,
          ),
      };
    },
    async stop() {
      for (const ws of clients) ws.terminate();
      await gateway.closeAll();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function memoryVariant(): Promise<Made> {
  const sockets = new MemorySockets();
  return {
    sockets,
    async open() {
      const id = randomUUID();
      sockets.connect(id);
      return { id, received: async () => sockets.posted.get(id) ?? [], closedWith: async () => sockets.closed.get(id) ?? null };
    },
    async stop() {},
  };
}

const variants: Array<[string, () => Promise<Made>]> = [
  ['api gateway on the local gateway', () => gatewayVariant(true)],
  ["the local gateway's sockets port (memory mode)", () => gatewayVariant(false)],
  ['memory', memoryVariant],
];

describe.each(variants)('sockets port (%s)', (_name, make) => {
  const made: Made[] = [];
  const fresh = async () => {
    const m = await make();
    made.push(m);
    return m;
  };
  afterAll(async () => {
    for (const m of made) await m.stop();
  });

  it('posts a message to an open socket', async () => {
    const { sockets, open } = await fresh();
    const s = await open();
    expect(await sockets.post(s.id, Buffer.from('{"t":"hello"}'))).toBe('sent');
    expect(await s.received(1)).toEqual(['{"t":"hello"}']);
  });

  it('answers gone for a socket it does not know', async () => {
    const { sockets } = await fresh();
    expect(await sockets.post('L0SM9cOFvHcCIhw=', Buffer.from('x'))).toBe('gone');
  });

  it('closes a socket with the code asked for; a closed socket is gone and closing it again is no error', async () => {
    const { sockets, open } = await fresh();
    const s = await open();
    await sockets.close(s.id, 4403);
    expect(await s.closedWith()).toBe(4403);
    expect(await sockets.post(s.id, Buffer.from('late'))).toBe('gone');
    await expect(sockets.close(s.id, 4401)).resolves.toBeUndefined();
  });
});
