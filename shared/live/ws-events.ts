/** What the live socket functions read of API Gateway WebSocket events. */
import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { addressKey, callerAddressKey } from '../domain/address-key';
import type { ConnectRequest } from './socket';

/** `$connect` carries the upgrade request's headers and query (a WebSocket API's event is the REST shape). */
export interface WsConnectEvent {
  headers?: Record<string, string | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  requestContext: { connectionId: string; identity?: { sourceIp?: string } };
}

export type WsEvent = APIGatewayProxyWebsocketEventV2 & { requestContext: { identity?: { sourceIp?: string } } };

/**
 * The upgrade request as authentication reads it: lower-case headers, cookies, query, and the caller's
 * address key (`CloudFront-Viewer-Address` only when `fromEdge`: the origin-verify header was checked).
 */
export function connectRequest(event: WsConnectEvent, fromEdge = false): ConnectRequest {
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
  const ip = callerAddressKey(headers, event.requestContext.identity?.sourceIp ?? '', fromEdge);
  return { connectionId: event.requestContext.connectionId, headers, cookies, query, ip };
}

/** The address key of a message or disconnect event's source IP (messages carry no headers). */
export const sourceIpOf = (event: WsEvent): string => addressKey(event.requestContext.identity?.sourceIp ?? '');
