/**
 * Issue 26 point 6: the public host never answers a request with a credential from its cache. The viewer-request
 * function (lib/constructs/edge-cache.ts) is run here in Node on sample events: a request with any credential
 * the service reads (Authorization, the `__session` cookie, `?token=`) gets a cache-key part of its own (the
 * request id), and whatever it leaves unmarked is what the service itself answers as anonymous.
 */
import { describe, expect, it } from 'vitest';
import { CACHE_KEY_HEADERS, credentialGuardSource, EDGE_PRIVATE_HEADER } from '../../lib/constructs/edge-cache';
import { authenticate, carriesCredential } from '../../shared/auth/authenticate';
import { ManualClock } from '../../shared/clock';
import type { Services } from '../../shared/services';
import { type EdgeRequest, edgeHandler, viewerRequest } from '../support/cloudfront-function';

const guard = edgeHandler(credentialGuardSource());
const mark = (r: EdgeRequest): string | undefined => r.headers[EDGE_PRIVATE_HEADER]?.value;
const values = (o: Record<string, { value: string }>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.value]));
/** The request as the origin reads it (shared/http/request.ts): lower-case headers, cookies and query by name. */
const authRequest = (r: EdgeRequest) => ({ headers: values(r.headers), cookies: values(r.cookies), query: values(r.querystring) });

/** Requests that carry a credential, in every form the service accepts (spec: Authentication) and malformed ones. */
const CREDENTIALED: Array<[string, string, Record<string, string>]> = [
  ['session JWT in Authorization', '/api/v1/ah', { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig', accept: '*/*' }],
  ['API key', '/api/v1/items/unknown', { Authorization: `Bearer ak_${'k'.repeat(32)}` }],
  ['device token', '/api/v1/ah/forever.normal.alliance.us/snapshot', { authorization: `Bearer svc_dev_${'a'.repeat(43)}` }],
  ['malformed Authorization (answered 401)', '/api/v1/config', { authorization: 'Basic dXNlcjpwYXNz' }],
  ['empty Authorization', '/api/v1/config', { authorization: '' }],
  ['session cookie', '/item/2589', { cookie: '__client_uat=1; __session=eyJ.e30.sig', accept: 'text/html' }],
  ['empty session cookie', '/', { cookie: '__session=' }],
  ['query token', '/api/v1/ah?token=svc_dev_abc', {}],
];

/** Requests without a credential: other cookies, other parameters and look-alike headers do not count. */
const ANONYMOUS: Array<[string, string, Record<string, string>]> = [
  ['plain API read', '/api/v1/ah', { accept: 'application/json' }],
  ['page in Markdown', '/item/2589?m=forever.pvp.horde.us', { accept: 'text/markdown' }],
  ['other cookies only', '/', { cookie: '__client_uat=0; theme=dark' }],
  ['a parameter that is not token', '/api/v1/items?build=123&tokens=1', {}],
  ['look-alike headers', '/api/v1/items/unknown', { 'x-api-key': 'ak_x', 'proxy-authorization': 'Basic x' }],
];

describe('edge credential guard (CloudFront viewer-request function)', () => {
  it.each(CREDENTIALED)('gives a request with a %s a cache-key part no other request shares', (_name, url, headers) => {
    const first = guard(viewerRequest('GET', url, headers, 'req-1'));
    const again = guard(viewerRequest('GET', url, headers, 'req-2'));
    expect(mark(first)).toBe('req-1');
    expect(mark(again)).toBe('req-2');
    // The credential itself still reaches the origin (Authorization and the cookie are in the key, so forwarded).
    expect(first.headers.authorization?.value).toBe(headers.authorization ?? headers.Authorization);
    expect(first.uri).toBe(new URL(url, 'https://x.test').pathname);
  });

  it.each(ANONYMOUS)('leaves an anonymous %s unmarked, so it shares the cache entry of its path, query and Accept', (_name, url, headers) => {
    const a = guard(viewerRequest('GET', url, headers, 'req-1'));
    const b = guard(viewerRequest('GET', url, headers, 'req-2'));
    expect(mark(a)).toBeUndefined();
    expect(a).toEqual(b);
  });

  it('drops a viewer’s own x-edge-private, so no anonymous caller can pick its cache entry', () => {
    const r = guard(viewerRequest('GET', '/api/v1/ah', { [EDGE_PRIVATE_HEADER]: 'mine' }));
    expect(mark(r)).toBeUndefined();
    const credentialed = guard(viewerRequest('GET', '/api/v1/ah', { [EDGE_PRIVATE_HEADER]: 'mine', authorization: 'Bearer ak_x' }, 'req-9'));
    expect(mark(credentialed)).toBe('req-9');
  });

  it('marks writes and every method alike (only GET and HEAD are cached, the mark costs nothing elsewhere)', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'])
      expect(mark(guard(viewerRequest(method, '/api/v1/ah/books', { authorization: 'Bearer svc_dev_x' }, 'r')))).toBe('r');
  });

  it('puts its mark in the cache key, beside Authorization and Accept', () => {
    expect([...CACHE_KEY_HEADERS].map((h) => h.toLowerCase())).toEqual(['authorization', 'accept', EDGE_PRIVATE_HEADER]);
  });

  it('marks exactly the requests the origin counts as credentialed (shared/auth carriesCredential)', () => {
    for (const [name, url, headers] of [...CREDENTIALED, ...ANONYMOUS]) {
      const r = guard(viewerRequest('GET', url, headers, 'r'));
      expect(mark(r) !== undefined, name).toBe(carriesCredential(authRequest(r)));
    }
  });

  it('leaves unmarked only what the service answers as anonymous (even where ?token= is accepted)', async () => {
    const svc = { clock: new ManualClock(1_800_000_000_000) } as unknown as Services;
    for (const [name, url, headers] of ANONYMOUS) {
      const r = guard(viewerRequest('GET', url, headers));
      const principal = await authenticate({ ...authRequest(r), ip: 'ip:198.51.100.7' }, svc, { queryToken: true });
      expect(principal.kind, name).toBe('anon');
    }
  });
});
