/** What the live socket functions read of API Gateway WebSocket events. */
import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import type { ConnectRequest } from './socket';

/** `$connect` carries the upgrade request's headers and query (a WebSocket API's event is the REST shape). */
export interface WsConnectEvent {
  headers?: Record<string, string | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  requestContext: { connectionId: string; identity?: { sourceIp?: string } };
}

export type WsEvent = APIGatewayProxyWebsocketEventV2 & { requestContext: { identity?: { sourceIp?: string } } };

/** `CloudFront-Viewer-Address` is `ip:port`; without it the source IP the gateway saw. */
function viewerIp(headers: Record<string, string>, sourceIp: string | undefined): string {
  const v = headers['cloudfront-viewer-address'];
  const i = v ? v.lastIndexOf(':') : -1;
  return v && i > 0 ? v.slice(0, i) : (sourceIp ?? '');
}

/** The upgrade request as authentication reads it: lower-case headers, cookies, query, viewer IP. */
export function connectRequest(event: WsConnectEvent): ConnectRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  const cookies: Record<string, string> = {};
  for (const part of (headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    try {
      cookies[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      cookies[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    }
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) query[k] = v;
  return { connectionId: event.requestContext.connectionId, headers, cookies, query, ip: viewerIp(headers, event.requestContext.identity?.sourceIp) };
}

/** The caller's IP of a message or disconnect event. */
export const sourceIpOf = (event: WsEvent): string => event.requestContext.identity?.sourceIp ?? '';
