import { callerAddressKey } from '../domain/address-key';
import { boundPathParams, boundQuery } from './bounds';
import type { ApiRequest, HttpEvent } from './types';

export { callerAddressKey };

/**
 * Builds the route's view of an API Gateway v2 event: path parameters and query values within their bounds
 * (bounds.ts); `fromEdge` says the origin-verify header was checked.
 */
export function toApiRequest(event: HttpEvent, params: Record<string, string> = {}, fromEdge = false): ApiRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  const cookies: Record<string, string> = {};
  const cookieList = event.cookies ?? (headers.cookie ? headers.cookie.split(';') : []);
  for (const c of cookieList) {
    const i = c.indexOf('=');
    if (i > 0) cookies[c.slice(0, i).trim()] = decodeSafe(c.slice(i + 1).trim());
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) query[k] = v;
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    routeKey: event.routeKey,
    params: boundPathParams({ ...(event.pathParameters as Record<string, string> | undefined), ...params }),
    query: boundQuery(query),
    headers,
    cookies,
    body,
    ip: callerAddressKey(headers, event.requestContext.http.sourceIp, fromEdge),
    event,
  };
}

function decodeSafe(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
