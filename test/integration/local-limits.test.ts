/**
 * Issue 13 point 2: the local runtime refuses what AWS refuses, answering as API Gateway does. Real HTTP and
 * WebSocket connections; timeouts shown with short knobs (lib/local/functions/lambda.ts), never by waiting 29 s.
 */
import { createServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { INVOKE_REQUEST_MAX } from '../../lib/local/functions/lambda';
import { HTTP_API_MAX_BODY, WS_FRAME_MAX, WS_MESSAGE_MAX } from '../../lib/local/gateways/gateway-limits';
import { LiveGateway } from '../../lib/local/gateways/live-gateway';
import { TEST_WAIT_MS } from '../support/live-client';
import { type Local, startLocal } from '../support/local';
import { uncheckedFetch } from '../support/openapi-fetch';

const TOO_LARGE = { message: 'Request Entity Too Large' };
const INTERNAL = { message: 'Internal Server Error' };
const UNAVAILABLE = { message: 'Service Unavailable' };

describe('API Gateway and Lambda limits on the HTTP API', () => {
  let local: Local;
  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local?.close());
  afterEach(() => {
    const knobs = local.runtime.lambdaKnobs;
    knobs.timeoutMs = {};
    knobs.delayMs = {};
    knobs.responseMax = undefined;
    knobs.onResult = undefined;
    local.runtime.integrationTimeoutMs = 30_000;
  });

  const post = async (body: Buffer, headers: Record<string, string> = {}) => {
    const res = await fetch(`${local.base}/api/v1/ah/books`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('answers a body above 10 MB 413 {"message":"Request Entity Too Large"} before any function runs', async () => {
    expect(await post(Buffer.alloc(HTTP_API_MAX_BODY + 1, 0x20))).toEqual({ status: 413, body: TOO_LARGE });
  });

  it('refuses an event above 6 MB as API Gateway does (413); just under reaches the function', async () => {
    // The event carries the body and the request's headers: 64 KB below the limit is under, 1 byte above over.
    const under = await post(Buffer.alloc(INVOKE_REQUEST_MAX - 64 * 1024, 0x20));
    expect(under.status).toBe(401);
    expect(under.body).toMatchObject({ error: 'unauthenticated' });
    expect(await post(Buffer.alloc(INVOKE_REQUEST_MAX + 1, 0x20))).toEqual({ status: 413, body: TOO_LARGE });
  });

  it('counts a binary body after base64 (4.4 MiB of gzip reaches the function, 4.6 MiB does not)', async () => {
    const binary = (n: number) => {
      const raw = Buffer.alloc(n);
      for (let i = 0; i < n; i++) raw[i] = (i * 2654435761) >>> 24;
      return raw;
    };
    const headers = { 'content-encoding': 'gzip' };
    const under = await post(binary(Math.floor(4.4 * 1024 * 1024)), headers);
    expect(under.status).toBe(401);
    expect(await post(binary(Math.floor(4.6 * 1024 * 1024)), headers)).toEqual({ status: 413, body: TOO_LARGE });
  });

  it('answers a function result above the response limit 502 {"message":"Internal Server Error"}, at the exact size', async () => {
    const knobs = local.runtime.lambdaKnobs;
    let bytes = 0;
    knobs.onResult = (name, n) => {
      if (name === 'api') bytes = n;
    };
    // API Gateway's own 502 and 500: no document describes a function failing (test/support/openapi-fetch.ts).
    const config = () => uncheckedFetch(`${local.base}/api/v1/config`);
    expect((await config()).status).toBe(200);
    expect(bytes).toBeGreaterThan(0);
    knobs.responseMax = bytes;
    expect((await config()).status).toBe(200);
    knobs.responseMax = bytes - 1;
    const over = await config();
    expect([over.status, await over.json()]).toEqual([502, INTERNAL]);
  });

  it('holds each function to its manifest timeout in wall time: 500 {"message":"Internal Server Error"} past it', async () => {
    const knobs = local.runtime.lambdaKnobs;
    knobs.timeoutMs.api = 1_000;
    knobs.delayMs.api = 300;
    expect((await fetch(`${local.base}/api/v1/config`)).status).toBe(200);
    knobs.delayMs.api = 1_300;
    const over = await uncheckedFetch(`${local.base}/api/v1/config`);
    expect([over.status, await over.json()]).toEqual([500, INTERNAL]);
  });

  it('gives up after the integration timeout with 503 {"message":"Service Unavailable"}; the control API is exempt', async () => {
    local.runtime.integrationTimeoutMs = 1_000;
    const knobs = local.runtime.lambdaKnobs;
    knobs.delayMs.api = 300;
    expect((await fetch(`${local.base}/api/v1/config`)).status).toBe(200);
    knobs.delayMs.api = 1_300;
    const over = await uncheckedFetch(`${local.base}/api/v1/config`);
    expect([over.status, await over.json()]).toEqual([503, UNAVAILABLE]);
    // settle and tick are the operator's, not the gateway's: they may take as long as the work does.
    local.runtime.integrationTimeoutMs = 1;
    expect((await fetch(`${local.base}/_local/settle`, { method: 'POST' })).status).toBe(200);
  });
});

describe('API Gateway limits on the WebSocket API and @connections', () => {
  let base = '';
  let gateway: LiveGateway;
  let server: ReturnType<typeof createServer>;
  const received: string[] = [];

  beforeAll(async () => {
    gateway = new LiveGateway(
      'local',
      async (_fn, ev) => {
        const e = ev as { requestContext: { routeKey: string; connectionId: string }; body?: string };
        if (e.requestContext.routeKey === '$default') received.push(e.body ?? '');
        if (e.requestContext.routeKey === '$connect') received.push(`connect:${e.requestContext.connectionId}`);
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
    server.on('upgrade', (req, socket, head) => void gateway.upgrade(req, socket, head, new URL(req.url ?? '/', 'http://x'), 'edge'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await gateway.closeAll();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const open = async (): Promise<{ ws: WebSocket; id: string; closed: Promise<number> }> => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/live`);
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('error', () => undefined);
    await new Promise((r) => ws.on('open', r));
    const id =
      received
        .filter((m) => m.startsWith('connect:'))
        .at(-1)
        ?.slice('connect:'.length) ?? '';
    return { ws, id, closed };
  };
  /** Sends `size` bytes as one message in frames of at most `frame` bytes. */
  const sendFramed = (ws: WebSocket, size: number, frame: number): void => {
    for (let sent = 0; sent < size; sent += frame) {
      const n = Math.min(frame, size - sent);
      ws.send('x'.repeat(n), { fin: sent + n >= size });
    }
  };
  /** Whether a message of `size` bytes reached the function: waits as long as a live message may take on a loaded machine. */
  const delivered = async (size: number) => {
    const until = Date.now() + TEST_WAIT_MS;
    while (!received.some((m) => m.length === size) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    return received.some((m) => m.length === size);
  };

  it('takes a 32 KB frame and closes the connection with 1009 on a frame one byte larger', async () => {
    const { ws, closed } = await open();
    ws.send('x'.repeat(WS_FRAME_MAX - 1));
    ws.send('y'.repeat(WS_FRAME_MAX));
    expect(await delivered(WS_FRAME_MAX)).toBe(true);
    ws.send('z'.repeat(WS_FRAME_MAX + 1));
    expect(await closed).toBe(1009);
  });

  it('takes a 128 KB message in 32 KB frames and closes with 1009 on a message one byte larger', async () => {
    const first = await open();
    sendFramed(first.ws, WS_MESSAGE_MAX, WS_FRAME_MAX);
    expect(await delivered(WS_MESSAGE_MAX)).toBe(true);
    first.ws.close();
    const second = await open();
    sendFramed(second.ws, WS_MESSAGE_MAX + 1, WS_FRAME_MAX);
    expect(await second.closed).toBe(1009);
    expect(received.some((m) => m.length === WS_MESSAGE_MAX + 1)).toBe(false);
  });

  it('answers PostToConnection above 128 KB 413 PayloadTooLargeException and delivers 128 KB', async () => {
    const { ws, id } = await open();
    const got = new Promise<number>((r) => ws.once('message', (d) => r((d as Buffer).length)));
    const postData = (n: number) => fetch(`${base}/local/@connections/${encodeURIComponent(id)}`, { method: 'POST', body: 'x'.repeat(n) });
    expect((await postData(WS_MESSAGE_MAX)).status).toBe(200);
    expect(await got).toBe(WS_MESSAGE_MAX);
    const over = await postData(WS_MESSAGE_MAX + 1);
    expect(over.status).toBe(413);
    expect(over.headers.get('x-amzn-errortype')).toBe('PayloadTooLargeException');
    ws.close();
  });
});
