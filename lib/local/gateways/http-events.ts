/** Translates between Node's HTTP messages and API Gateway HTTP API (payload v2) events and results. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ORIGIN_VERIFY_HEADER } from '../../../shared/http/edge';

/** The caller's address as CloudFront reports it: the first `X-Forwarded-For` entry when it is an address, else the socket's. */
export function viewerAddress(req: IncomingMessage): string {
  const xff = req.headers['x-forwarded-for'];
  const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
  return `${(first && isIP(first) ? first : undefined) || socketIp(req)}:${req.socket.remotePort ?? 0}`;
}

/** The address the TCP connection came from (what an origin called directly sees as the source IP). */
export const socketIp = (req: IncomingMessage): string => req.socket.remoteAddress?.replace(/^::ffff:/, '') || '127.0.0.1';

/**
 * The headers an origin receives. Through the edge (`originVerify` set) the gateway plays CloudFront: it sets
 * `CloudFront-Viewer-Address` and the origin-verify header, overwriting whatever the viewer sent under those
 * names. Without it (the execute-api host, called directly) the viewer's headers arrive as sent.
 */
export function originHeaders(req: IncomingMessage, originVerify: string | null): { headers: Record<string, string>; sourceIp: string } {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'cookie') headers[k] = Array.isArray(v) ? v.join(',') : v;
  if (originVerify === null) return { headers, sourceIp: socketIp(req) };
  const viewer = viewerAddress(req);
  headers['cloudfront-viewer-address'] = viewer;
  headers[ORIGIN_VERIFY_HEADER] = originVerify;
  return { headers, sourceIp: viewer.slice(0, viewer.lastIndexOf(':')) };
}

/**
 * API Gateway's quota on a request: "total combined size of request line and header values: 10240 bytes"
 * (HTTP APIs, not adjustable). The local gateway refuses larger requests before any function runs, as AWS does.
 */
export const REQUEST_HEAD_MAX_BYTES = 10_240;

/** The bytes of a request's line and header values, as the quota counts them. */
export function requestHeadBytes(req: IncomingMessage): number {
  let n = Buffer.byteLength(`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`);
  for (let i = 1; i < req.rawHeaders.length; i += 2) n += Buffer.byteLength(req.rawHeaders[i]);
  return n;
}

/** The refusal of a request past the quota (431, as API Gateway answers it; the body in the API's error shape). */
export const TOO_LARGE_HEAD = { error: 'too_large', message: `request line and header values above ${REQUEST_HEAD_MAX_BYTES} bytes` } as const;

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded)|text\/)/i;

/** An HTTP API event; `originVerify` is the edge's header value, or null for a request that bypassed the edge. */
export function toHttpEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string>,
  originVerify: string | null,
): APIGatewayProxyEventV2 {
  const { headers, sourceIp } = originHeaders(req, originVerify);
  const raw = req.headers.cookie;
  const cookies =
    raw === undefined
      ? undefined
      : (Array.isArray(raw) ? raw.join('; ') : raw)
          .split(';')
          .map((c) => c.trim())
          .filter(Boolean);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const text = body.length === 0 || (!headers['content-encoding'] && TEXT_TYPES.test(headers['content-type'] ?? ''));
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body: body.length === 0 ? undefined : text ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !text,
  };
}

/** Writes a Lambda result as API Gateway does (structured results only). */
export function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2 | undefined, head: boolean): void {
  const r = result ?? { statusCode: 500, body: '{"error":"internal"}' };
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (r.cookies?.length) headers['set-cookie'] = r.cookies;
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8');
  // A 304 has no content and sends no Content-Length (RFC 9110 8.6: it would describe the 200's body).
  if (!('content-length' in headers) && r.statusCode !== 304) headers['content-length'] = String(body.length);
  res.writeHead(r.statusCode ?? 200, headers);
  res.end(head ? undefined : body);
}

/** Reads a request body up to `limit` bytes; resolves null when it is larger. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else if (!over) chunks.push(c);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(data.length), 'cache-control': 'no-store', ...headers });
  res.end(data);
}
