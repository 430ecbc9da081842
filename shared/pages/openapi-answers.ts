/**
 * What the full OpenAPI document (openapi-full.ts) says every operation answers beyond its own schemas
 * (issue 24 point 10): who may call it (`security`), the admission errors every `/api/v1/` route can give
 * (401, 403 `edge_only` / `bad_origin` / `forbidden` for `api.read`, 429, 503 `unavailable`), the statuses of
 * the HTTP layer (304 on a matching `If-None-Match`, 303 for a spilled big answer, 302, the live route's 101)
 * and the headers each answer carries. Pure.
 */
import type { RouteDoc } from '../api/route-doc';
import type { ErrorCode } from '../errors';

type Json = Record<string, unknown>;

/** The security schemes: one per kind of credential, so each operation can say which it takes. */
export const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'ak_…', description: 'An API key (`ak_…`) from the account page; reads need its `api.read` scope' },
  deviceToken: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_dev_…', description: 'A desktop device token (`svc_dev_` and 43 base64url characters)' },
  sessionToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A website session JWT sent as a bearer token' },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: '__session',
    description: 'The website session cookie (same site); an expired or invalid cookie counts as no credential',
  },
};

const ANY_CREDENTIAL = [{ apiKey: [] }, { deviceToken: [] }, { sessionToken: [] }, { sessionCookie: [] }];

/** An operation's `security` by who may call it (RouteDoc `callers`): `{}` means no credential is needed. */
export function securityOf(doc: RouteDoc, api: boolean): Json[] {
  switch (api ? doc.callers : 'none') {
    case 'none':
      return [{}];
    case 'signedIn':
      return ANY_CREDENTIAL;
    case 'uploaders':
      return [{ deviceToken: [] }, { apiKey: [] }];
    case 'sessions':
      return [{ sessionToken: [] }, { sessionCookie: [] }];
    default:
      return [{}, ...ANY_CREDENTIAL];
  }
}

/** Headers the service sends, declared once (components.headers) and referenced by each answer. */
export const HEADERS: Record<string, Json> = {
  'Cache-Control': {
    description: 'How long a cache may keep the answer: `private, no-store` for live, per-caller and error answers',
    schema: { type: 'string' },
  },
  Vary: { description: 'The request headers the answer depends on (Accept, Accept-Encoding, Authorization, Cookie)', schema: { type: 'string' } },
  ETag: {
    description: 'The entity tag of a storable answer; send it as `If-None-Match` to be answered 304 while it holds',
    schema: { type: 'string', pattern: '^(W/)?"[\\x21\\x23-\\x7e]*"$' },
  },
  'RateLimit-Limit': { description: "The caller's `apiPerMinute`", schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': {
    description: 'What is left of it in the current minute window (0 at the limit and beyond)',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': { description: 'Seconds until the current minute window ends', schema: { type: 'integer', minimum: 1, maximum: 60 } },
  'Retry-After': { description: 'Seconds to wait before retrying (60)', required: true, schema: { type: 'integer', minimum: 0 } },
  Location: { description: 'Where the answer is', required: true, schema: { type: 'string' } },
  'X-Service-Build': { description: 'The item data build the answer comes from', schema: { type: 'string' } },
  Link: { description: 'The API catalog (RFC 9727 `rel="api-catalog"`)', schema: { type: 'string' } },
};

const header = (name: keyof typeof HEADERS & string) => [name, { $ref: `#/components/headers/${name}` }] as const;
const RATE_LIMIT = [header('RateLimit-Limit'), header('RateLimit-Remaining'), header('RateLimit-Reset')];

/** Where an operation is: an `/api/v1/` route (rate limited, credentials read) or a page, and its method. */
export interface Place {
  api: boolean;
  method: string;
  path: string;
}

/** The headers of one answer of an operation. */
export function headersOf(place: Place, doc: RouteDoc, status: number): Json {
  const h: Array<readonly [string, Json]> = [header('Cache-Control'), header('Vary')];
  if (place.api && doc.callers !== 'none') h.push(...RATE_LIMIT);
  if (status === 429) h.push(header('Retry-After'));
  if (status === 302 || status === 303) h.push(header('Location'));
  if ((status === 200 || status === 304) && doc.cached) h.push(header('ETag'));
  if (status < 400 && place.api && place.path.startsWith('/api/v1/items') && place.method === 'get') h.push(header('X-Service-Build'));
  if (status < 400 && place.path === '/') h.push(header('Link'));
  return Object.fromEntries(h);
}

/**
 * Every error code an operation answers: its own, the edge's (`edge_only`: a request that did not come through
 * the distribution), and for `/api/v1/` routes admission's (DESIGN check order): 401 for a bad credential (and
 * for anonymous callers where a sign-in is needed), 429, 503 `unavailable` when the identity provider or the
 * storage cannot be asked, 403 `bad_origin` for a session's write, 403 `forbidden` for an API key without
 * `api.read` on a read, and the route's caller rule (`devices_only`, `sessions_only`).
 */
export function errorCodesOf(place: Place, doc: RouteDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>(doc.errors ?? []);
  codes.add('edge_only');
  if (place.api && doc.callers !== 'none') {
    codes.add('unauthenticated');
    codes.add('rate_limited');
    codes.add('unavailable');
    if (place.method !== 'get' && place.method !== 'head') codes.add('bad_origin');
    // A JSON body above the HTTP layer's bound (shared/http/bounds.ts).
    if (doc.body) codes.add('too_large');
    if (place.method === 'get' && !doc.keyExempt) codes.add('forbidden');
    if (doc.callers === 'uploaders') codes.add('devices_only');
    if (doc.callers === 'sessions') codes.add('sessions_only');
  }
  return [...codes];
}

/**
 * API Gateway's own error body (`{"message": ...}`): 413 past its 10 MB request body, 503 when the function did
 * not answer within its 30 s integration timeout. The service's own errors are `{error, message?}`.
 */
export const GATEWAY_ERROR = {
  type: 'object',
  description: "API Gateway's own answer: 413 `Request Entity Too Large` (a body past 10 MB), 503 `Service Unavailable` (no answer in 30 s)",
  properties: { message: { type: 'string' } },
  required: ['message'],
};

/** Whether an error status may also come from the gateway in front of the route (a body route's 413, any API route's 503). */
export const gatewayMayAnswer = (place: Place, doc: RouteDoc, status: number): boolean =>
  place.api && doc.callers !== 'none' && (status === 503 || (status === 413 && doc.body !== undefined));

/** The statuses of the HTTP layer an operation may answer besides 200 and its errors. */
export function layerAnswers(place: Place, doc: RouteDoc, head: boolean): Json {
  const out: Json = {};
  if (doc.spills && !head)
    out['303'] = {
      description: 'See Other: the answer is too large to send here; the same JSON is at `Location` on the file host',
      headers: headersOf(place, doc, 303),
      content: {
        'application/json': {
          schema: { type: 'object', properties: { url: { type: 'string', description: 'the file URL (= Location)' } }, required: ['url'] },
        },
      },
    };
  if (doc.cached) out['304'] = { description: 'Not Modified: `If-None-Match` matches the current `ETag`', headers: headersOf(place, doc, 304) };
  return out;
}
