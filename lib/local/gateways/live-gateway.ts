/**
 * The WebSocket API and its `@connections` management endpoint, as API Gateway runs them: `$connect` is
 * invoked before the handshake completes (a non-2xx answer rejects it with that status), messages go to
 * `$default`, closes to `$disconnect`; `POST/GET/DELETE /{stage}/@connections/{id}` reach the client, and a
 * gone connection answers 410 with `x-amzn-errortype: GoneException`.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { WebSocket, WebSocketServer } from 'ws';
import type { PostResult, SocketsPort } from '../../../shared/ports/connections';
import type { FunctionName } from '../../../shared/topology';
import type { ManageAccess } from '../aws-edge/connections';
import { WS_FRAME_MAX, WS_MESSAGE_MAX } from './gateway-limits';
import { originHeaders, readBody, sendJson } from './http-events';

interface Connection {
  id: string;
  ws: WebSocket | null;
  /** Messages posted before the handshake finished (the `hello` can race the upgrade). */
  queued: string[];
  connectedAt: number;
  lastActiveAt: number;
  sourceIp: string;
  userAgent: string;
}

export type Invoke = (fn: FunctionName, event: unknown) => Promise<unknown>;

/** API Gateway's connection ids look like `L0SM9cOFvHcCIhw=`. */
const newConnectionId = (): string => randomBytes(10).toString('base64');

export class LiveGateway {
  // A message past 128 KB closes the connection with 1009 (ws's own check); frames are checked per socket below.
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: WS_MESSAGE_MAX });
  private readonly connections = new Map<string, Connection>();
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    readonly stage: string,
    private readonly invoke: Invoke,
    private readonly functions: { connect: FunctionName; message: FunctionName; disconnect: FunctionName },
    private readonly onError: (err: unknown) => void,
  ) {}

  get size(): number {
    return this.connections.size;
  }

  get busy(): boolean {
    return this.inflight.size > 0;
  }

  /** Waits for `$connect` / `$default` / `$disconnect` invocations in flight. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    p.finally(() => this.inflight.delete(p)).catch(() => undefined);
    return p;
  }

  private baseContext(c: Connection, routeKey: string, eventType: string, req?: IncomingMessage) {
    const now = Date.now();
    return {
      routeKey,
      eventType,
      extendedRequestId: randomUUID(),
      requestTime: new Date(now).toUTCString(),
      messageDirection: 'IN',
      stage: this.stage,
      connectedAt: c.connectedAt,
      requestTimeEpoch: now,
      identity: { sourceIp: c.sourceIp, userAgent: c.userAgent },
      requestId: randomUUID(),
      domainName: req?.headers.host ?? 'localhost',
      connectionId: c.id,
      apiId: 'local',
    };
  }

  /** Handles an upgrade request on the live path; `originVerify` as for HTTP events (null: the edge was bypassed). */
  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, originVerify: string | null): Promise<void> {
    const { headers, sourceIp } = originHeaders(req, originVerify);
    if (req.headers.cookie !== undefined) headers.cookie = Array.isArray(req.headers.cookie) ? req.headers.cookie.join('; ') : req.headers.cookie;
    const c: Connection = {
      id: newConnectionId(),
      ws: null,
      queued: [],
      connectedAt: Date.now(),
      lastActiveAt: Date.now(),
      sourceIp,
      userAgent: String(req.headers['user-agent'] ?? ''),
    };
    this.connections.set(c.id, c);
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const event = {
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      queryStringParameters: Object.keys(query).length ? query : undefined,
      multiValueQueryStringParameters: Object.keys(query).length ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : undefined,
      requestContext: this.baseContext(c, '$connect', 'CONNECT', req),
      isBase64Encoded: false,
    };
    let result: APIGatewayProxyResult | undefined;
    try {
      result = (await this.track(this.invoke(this.functions.connect, event))) as APIGatewayProxyResult | undefined;
    } catch (err) {
      this.onError(err);
      result = { statusCode: 500, body: '{"error":"internal"}' };
    }
    const status = result?.statusCode ?? 200;
    if (status < 200 || status > 299) {
      this.connections.delete(c.id);
      const body = Buffer.from(result?.body ?? '');
      const lines = [`HTTP/1.1 ${status} ${statusText(status)}`, 'Connection: close', `Content-Length: ${body.length}`];
      for (const [k, v] of Object.entries(result?.headers ?? { 'content-type': 'application/json' })) lines.push(`${k}: ${v}`);
      socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
      return;
    }
    if (socket.destroyed || !this.connections.has(c.id)) {
      this.connections.delete(c.id);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      c.ws = ws;
      limitFrames(ws);
      // A frame or message past the quotas is an error on the socket; ws closes it with 1009 as API Gateway does.
      ws.on('error', () => undefined);
      for (const m of c.queued.splice(0)) ws.send(m);
      ws.on('message', (data, isBinary) => {
        // As API Gateway: once a connection is being closed, its messages reach no route.
        if (ws.readyState !== WebSocket.OPEN) return;
        c.lastActiveAt = Date.now();
        const body = isBinary ? Buffer.from(data as Buffer).toString('base64') : data.toString();
        const ev = { requestContext: { ...this.baseContext(c, '$default', 'MESSAGE'), messageId: randomUUID() }, body, isBase64Encoded: isBinary };
        this.track(this.invoke(this.functions.message, ev)).catch(this.onError);
      });
      ws.on('close', (code, reason) => {
        if (!this.connections.has(c.id)) return;
        this.connections.delete(c.id);
        const ev = {
          requestContext: { ...this.baseContext(c, '$disconnect', 'DISCONNECT'), disconnectStatusCode: code, disconnectReason: reason.toString() },
          isBase64Encoded: false,
        };
        this.track(this.invoke(this.functions.disconnect, ev)).catch(this.onError);
      });
    });
  }

  /** `/{stage}/@connections/{id}`: POST sends, GET describes, DELETE closes (an `x-close-code` header picks the close code locally). */
  /** Who may call `@connections` (the local AWS edge's scheme); none: everyone (tests of the gateway alone). */
  access: ManageAccess | null = null;

  async manage(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const body = await readBody(req, WS_MESSAGE_MAX + 1);
    // The caller's signature and its IAM policies come first, as on AWS (lib/local/aws-edge/connections.ts).
    const refused = this.access ? await this.access(req, body ?? Buffer.alloc(0)) : null;
    if (refused) return sendJson(res, refused.status, { message: refused.message }, { 'x-amzn-errortype': refused.type });
    const c = this.openConnection(id);
    if (!c) {
      sendJson(res, 410, { message: 'Gone' }, { 'x-amzn-errortype': 'GoneException' });
      return;
    }
    if (req.method === 'POST') {
      if (body === null || body.length > WS_MESSAGE_MAX) {
        sendJson(res, 413, { message: 'Payload too large' }, { 'x-amzn-errortype': 'PayloadTooLargeException' });
        return;
      }
      this.send(c, body.toString('utf8'));
      res.writeHead(200, { 'content-length': '0' }).end();
      return;
    }
    if (req.method === 'GET') {
      sendJson(res, 200, {
        ConnectedAt: new Date(c.connectedAt).toISOString(),
        LastActiveAt: new Date(c.lastActiveAt).toISOString(),
        Identity: { SourceIp: c.sourceIp, UserAgent: c.userAgent },
      });
      return;
    }
    if (req.method === 'DELETE') {
      const code = Number(req.headers['x-close-code'] ?? 1000);
      this.close(c, Number.isInteger(code) && code >= 1000 && code < 5000 ? code : 1000);
      res.writeHead(204).end();
      return;
    }
    sendJson(res, 405, { message: 'Method not allowed' });
  }

  /** The connection `id` while it is open (or still in its handshake); null once gone. */
  private openConnection(id: string): Connection | null {
    const c = this.connections.get(id);
    return !c || (c.ws && c.ws.readyState !== WebSocket.OPEN) ? null : c;
  }

  private send(c: Connection, text: string): void {
    if (c.ws) c.ws.send(text);
    else c.queued.push(text);
  }

  /**
   * `@connections` without HTTP: the sockets port of the memory mode (lib/local/memory/), answering as the
   * management API does (a gone socket is `gone`, a message over 128 KB is refused as API Gateway's 413).
   */
  readonly sockets: SocketsPort = {
    post: async (id: string, data: Uint8Array): Promise<PostResult> => {
      const c = this.openConnection(id);
      if (!c) return 'gone';
      if (data.byteLength > WS_MESSAGE_MAX) throw Object.assign(new Error('Payload too large'), { name: 'PayloadTooLargeException' });
      this.send(c, Buffer.from(data).toString('utf8'));
      return 'sent';
    },
    close: async (id: string, code: number): Promise<void> => {
      const c = this.openConnection(id);
      if (c) this.close(c, code);
    },
  };

  private close(c: Connection, code: number): void {
    if (c.ws) c.ws.close(code);
    else this.connections.delete(c.id);
  }

  /**
   * Closes every open socket with `code` (`$disconnect` runs for each as usual), so clients can be tested
   * for what API Gateway does to them: connections close after 10 idle minutes or 2 hours (1001 going away).
   */
  drop(code: number): number {
    let dropped = 0;
    for (const c of this.connections.values()) {
      if (c.ws?.readyState !== WebSocket.OPEN) continue;
      c.ws.close(code, 'dropped by the local runtime');
      dropped++;
    }
    return dropped;
  }

  /** Closes every socket (shutdown). */
  async closeAll(): Promise<void> {
    for (const c of this.connections.values()) c.ws?.terminate();
    this.connections.clear();
    await this.idle();
    await new Promise<void>((r) => this.wss.close(() => r()));
  }
}

interface FrameReceiver {
  _payloadLength: number;
  _opcode: number;
  haveLength(cb: (err?: Error) => void): void;
  createError(ctor: typeof RangeError, message: string, prefix: boolean, status: number, code: string): Error;
}

/**
 * API Gateway's 32 KB frame quota: a data frame above it closes the connection with 1009, as a message above
 * 128 KB does. ws checks only the message, so the frame length its receiver has just read is checked here
 * (a private hook of ws 8's Receiver; the live-gateway test fails loudly if a ws upgrade changes it).
 */
function limitFrames(ws: WebSocket): void {
  const receiver = (ws as unknown as { _receiver?: FrameReceiver })._receiver;
  if (!receiver || typeof receiver.haveLength !== 'function') throw new Error('ws Receiver changed: the 32 KB frame check cannot hook it');
  const haveLength = receiver.haveLength;
  receiver.haveLength = function (this: FrameReceiver, cb) {
    if (this._opcode < 0x08 && this._payloadLength > WS_FRAME_MAX) {
      cb(this.createError(RangeError, 'Frame size exceeded', false, 1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'));
      return;
    }
    haveLength.call(this, cb);
  };
}

function statusText(status: number): string {
  return (
    (
      {
        400: 'Bad Request',
        401: 'Unauthorized',
        403: 'Forbidden',
        404: 'Not Found',
        426: 'Upgrade Required',
        429: 'Too Many Requests',
        500: 'Internal Server Error',
        503: 'Service Unavailable',
      } as Record<number, string>
    )[status] ?? 'Error'
  );
}
