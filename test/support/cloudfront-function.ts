/**
 * Runs a CloudFront Function's code (cloudfront-js-2.0, no imports) in Node on sample viewer-request events,
 * as CloudFront would call `handler(event)`: the code is evaluated in a fresh context, so it sees no Node
 * globals and nothing of the test's.
 */
import { randomUUID } from 'node:crypto';
import { createContext, runInContext } from 'node:vm';

/** One viewer-request event's request, in CloudFront Functions' shape (lower-case header names, `{value}` leaves). */
export interface EdgeRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string }>;
  headers: Record<string, { value: string }>;
  cookies: Record<string, { value: string }>;
}

/** A viewer-request event for `method` `url` with `headers` (names any case) and a `Cookie` string split as CloudFront does. */
export function viewerRequest(method: string, url: string, headers: Record<string, string> = {}, requestId: string = randomUUID()) {
  const u = new URL(url, 'https://example.test');
  const request: EdgeRequest = { method, uri: u.pathname, querystring: {}, headers: {}, cookies: {} };
  for (const [k, v] of u.searchParams) request.querystring[k] = { value: v };
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== 'cookie') request.headers[k.toLowerCase()] = { value: v };
    else
      for (const part of v.split(';')) {
        const i = part.indexOf('=');
        if (i > 0) request.cookies[part.slice(0, i).trim()] = { value: part.slice(i + 1).trim() };
      }
  }
  return {
    version: '1.0',
    context: { distributionDomainName: 'd111111abcdef8.cloudfront.net', distributionId: 'EDFDVBD6EXAMPLE', eventType: 'viewer-request', requestId },
    viewer: { ip: '198.51.100.7' },
    request,
  };
}

/** The `handler` of a function's code. */
export function edgeHandler(code: string): (event: ReturnType<typeof viewerRequest>) => EdgeRequest {
  const context = createContext({});
  runInContext(code, context);
  const handler = (context as { handler?: unknown }).handler;
  if (typeof handler !== 'function') throw new Error('the function code defines no handler');
  return (event) => handler(structuredClone(event)) as EdgeRequest;
}
