import { createServer } from 'node:http';
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveGateway } from '../../lib/local/gateways/live-gateway';

/** A gateway whose `$connect` admits `?ok=1` and refuses the rest with 401, recording every event. */
describe('local WebSocket gateway and @connections (API Gateway contract)', () => {
  type Event = { routeKey: string; connectionId: string; body?: string };
  const events: Event[] = [];
  const waiters: Array<{ match: (e: Event) => boolean; resolve: () => void }> = [];
  /** Resolves when the gateway has delivered an event that `match`es (at once if it already has). */
  const delivered = (match: (e: Event) => boolean): Promise<void> =>
    events.some(match) ? Promise.resolve() : new Promise((resolve) => waiters.push({ match, resolve }));
  let base = '';
  let gateway: LiveGateway;
  let server: ReturnType<typeof createServer>;
  let client: ApiGatewayManagementApiClient;

  beforeAll(async () => {
    gateway = new LiveGateway(
      'local',
      async (_fn, ev) => {
        const e = ev as { requestContext: { routeKey: string; connectionId: string }; body?: string; queryStringParameters?: Record<string, string> };
        const event = { routeKey: e.requestContext.routeKey, connectionId: e.requestContext.connectionId, body: e.body };
        events.push(event);
        for (const w of waiters.filter((x) => x.match(event))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        if (e.requestContext.routeKey === '$connect' && e.queryStringParameters?.ok !== '1') return { statusCode: 401, body: '{"error":"unauthenticated"}' };
        return { statusCode: 200 };
      },
      { connect: 'ws-connect', message: 'ws-message', disconnect: 'ws-disconnect' },
      (err) => {
        throw err;
      },
    );
    server = createServer((req, res) => {
      const m = req.url?.match(/^\/local\/@connections\/([^/?]+)/);
      if (m) void gateway.manage(req, res, decodeURIComponent(m[1]));
      else res.writeHead(404).end();
    });
    server.on('upgrade', (req, socket, head) => void gateway.upgrade(req, socket, head, new URL(req.url ?? '/', 'http://x'), 'edge-value'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    client = new ApiGatewayManagementApiClient({
      endpoint: `${base}/local`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });

  afterAll(async () => {
    await gateway.closeAll();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('rejects the handshake with the status the $connect handler answers', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/live`);
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });

  it('routes connect, messages and close to their handlers and delivers PostToConnection to the client', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/live?ok=1`);
    await new Promise((r) => ws.on('open', r));
    const id = events[events.length - 1].connectionId;
    expect(events[events.length - 1].routeKey).toBe('$connect');

    const received = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
    await client.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('{"t":"hello"}') }));
    expect(await received).toBe('{"t":"hello"}');

    ws.send('{"t":"auth","token":"x"}');
    await delivered((e) => e.routeKey === '$default' && e.connectionId === id && e.body === '{"t":"auth","token":"x"}');

    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    await client.send(new DeleteConnectionCommand({ ConnectionId: id }));
    expect(await closed).toBe(1000);
    await delivered((e) => e.routeKey === '$disconnect' && e.connectionId === id);
  });

  it('answers GoneException for a closed connection', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/live?ok=1`);
    await new Promise((r) => ws.on('open', r));
    const id = events[events.length - 1].connectionId;
    ws.close();
    await new Promise((r) => ws.on('close', r));
    await gateway.idle();
    await expect(client.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('x') }))).rejects.toBeInstanceOf(GoneException);
  });
});
