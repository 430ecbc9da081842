/**
 * Hostile requests for the route fuzz: path parameters of 1..100k characters in odd encodings, query strings
 * with odd names and values, JSON nested 10..10000 deep, bodies near and over the limits, odd headers. Built
 * with fast-check from a fixed seed, so a failure reproduces; sent raw (node:http), so nothing normalizes them.
 */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { HTTP_ROUTES } from '../../shared/topology';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Which caller sends it (the test adds its credential). */
  caller: Caller;
}

export type Caller = 'anon' | 'free' | 'premium' | 'device' | 'apiKey' | 'admin' | 'forged';

export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
}

const MARKET = 'forever.normal.alliance.us';
const HEAD_BUDGET = 3 * 1024 * 1024;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const CALLERS: Caller[] = ['anon', 'free', 'premium', 'device', 'apiKey', 'admin', 'forged'];

/** Percent-encodes what a raw request line may not carry, leaving `%` alone so odd escapes stay odd. */
const rawSegment = (s: string): string => s.replace(/[^\u0021-\u007e]|[/?#]/gu, (c) => encodeURIComponent(c));

const lengths = fc.constantFrom(1, 2, 16, 17, 64, 65, 255, 1023, 1024, 1025, 2048, 5000, 10_000, 100_000);
const odd = fc.constantFrom(
  '%00',
  '%ZZ',
  '%',
  '%2F',
  '%C0%AF',
  '%FF',
  '%E2%80%AE',
  '..',
  '.',
  '%2e%2e',
  '\u0000',
  '😀',
  'é',
  ' ',
  '\\',
  '"',
  "'",
  '<script>',
  '__proto__',
  'constructor',
);

/** A path parameter: a valid-looking one, a repeated or random filler of any length, or an odd encoding. */
const paramValue = fc.oneof(
  fc.constantFrom(
    MARKET,
    '1',
    '2589',
    '9007199254740991',
    '0',
    '-1',
    '1.5',
    '1e3',
    '00001',
    'dev_AbCdEfGhIjKlMnOp',
    '1793577601000',
    'x.webp',
    '1.webp',
    '1.md',
  ),
  fc.tuple(lengths, fc.constantFrom('a', '9', 'é', '😀', '%00', '%ZZ')).map(([n, c]) => c.repeat(Math.max(1, Math.floor(n / c.length)))),
  fc.array(fc.oneof(odd, fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
);

const QUERY_NAMES = ['res', 'from', 'to', 'since', 'items', 'build', 'm', 'market', 'token', 'foo', '__proto__', 'constructor', 'toString', '', '%ZZ', 'a%00'];
const queryValue = fc.oneof(
  fc.constantFrom(
    'm1',
    'h1',
    'd1',
    '0',
    '1793577601000',
    '9'.repeat(20),
    '-1',
    '1,2,3',
    Array.from({ length: 60 }, (_, i) => i + 1).join(','),
    MARKET,
    'x',
    '',
  ),
  paramValue,
);
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?', '?&&&', '?=', '?a', '?a=1&a=2', '?%ZZ=1', '?res=m1&res=h1', `?${'a=1&'.repeat(3000)}`),
  fc
    .array(fc.tuple(fc.constantFrom(...QUERY_NAMES), queryValue), { maxLength: 5 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${rawSegment(k)}=${rawSegment(v)}`).join('&')}` : '')),
);

const deep = (n: number, kind: 'array' | 'object'): string => (kind === 'array' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

/** Bodies a route may meet: templates of valid bodies with hostile fields, random JSON, deep nesting, sizes near the limits. */
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.tuple(fc.constantFrom(10, 33, 100, 1000, 10_000), fc.constantFrom('array' as const, 'object' as const)).map(([n, k]) => deep(n, k)),
  fc.tuple(fc.constantFrom(10, 40, 1000, 10_000), fc.jsonValue({ maxDepth: 2 })).map(([n, v]) =>
    JSON.stringify({
      market: MARKET,
      item: 1,
      kind: 'below',
      value: 5,
      name: v,
      items: [1, 2],
      dashboards: [{ id: 'd', name: 'd', widgets: [{ id: 'w', type: 't', x: JSON.parse(deep(Math.min(n, 1000), 'array')) }] }],
      screens: [],
      subscription: { endpoint: 'https://push.example/x', keys: { p256dh: 'x', auth: 'y' } },
      prefs: { deep: JSON.parse(deep(Math.min(n, 1000), 'object')), n: 1e300 },
      code: 'ABCD-EFGH',
      endpoint: 'https://push.example/x',
    }),
  ),
  fc.constantFrom(
    '',
    '{',
    'null',
    '"x"',
    '[]',
    '{"items":[[1,"Linen",1,0,0]]}',
    `{"items":[[1,"${'n'.repeat(300)}",1,0,0]]}`,
    `{"market":"${MARKET}","at":1793577601000,"complete":true,"auctions":1,"entries":[[1,9007199254740991,2147483647,4,2147483647]]}`,
    `{"market":"${MARKET}","at":1793577601000,"complete":true,"auctions":1,"entries":[[1,1e400,1,1,1]]}`,
  ),
);

const body = fc.oneof(
  { weight: 8, arbitrary: jsonBody.map((t) => ({ data: Buffer.from(t, 'utf8'), encoding: undefined as string | undefined })) },
  { weight: 1, arbitrary: jsonBody.map((t) => ({ data: gzipSync(t), encoding: 'gzip' as string | undefined })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('gzip', 'deflate', 'br', 'x-gzip, gzip', 'nonsense')
      .map((e) => ({ data: Buffer.from('not compressed'), encoding: e as string | undefined })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(1024 * 1024 + 1, 4 * 1024 * 1024 + 1)
      .map((n) => ({ data: Buffer.from(`{"pad":"${'x'.repeat(n)}"}`), encoding: undefined as string | undefined })),
  },
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\u0020-\u007e]/g, '?')),
  lengths.map((n) => 'h'.repeat(Math.min(n, 9000))),
);
const headers = fc.record(
  {
    accept: fc.constantFrom('text/markdown', 'text/markdown;q=0, text/html;q=0', '*/*;q=abc', 'application/json'),
    'accept-encoding': fc.constantFrom('gzip', 'gzip;q=0', '*', 'br;q=1, *;q=0', 'x'),
    origin: fc.constantFrom('https://evil.example', 'null', 'http://localhost:5173', 'BASE'),
    cookie: headerValue.map((v) => `__session=${v}`),
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', 'multipart/form-data; boundary=x'),
    'x-forwarded-for': fc.constantFrom('not-an-ip', '999.1.1.1', '::1', `${'1'.repeat(3000)}`, '10.0.0.1, 10.0.0.2', ''),
  },
  { requiredKeys: [] },
);

/** The route templates of the manifest, each once, with `{param}` placeholders. */
export const ROUTE_PATHS: readonly string[] = [...new Set(HTTP_ROUTES.map((r) => r.path))];

/** Valid values half the time for markets and keys, so requests get past the first check and deeper into routes. */
const placeholder = (name: string): fc.Arbitrary<string> => {
  if (name === 'market') return fc.oneof({ weight: 3, arbitrary: fc.constant(MARKET) }, { weight: 2, arbitrary: paramValue });
  if (name === 'item' || name === 'key')
    return fc.oneof({ weight: 2, arbitrary: fc.constantFrom('1', '2589', '9007199254740991', '140737488355327') }, { weight: 2, arbitrary: paramValue });
  return paramValue;
};

const names = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

const fill = (template: string, values: string[]): string => {
  let i = 0;
  return template.replace(/\{[^}]+\}/g, () => rawSegment(values[i++]));
};

/** One hostile request against a route template of the manifest. */
export function fuzzRequest(template: string): fc.Arbitrary<FuzzRequest> {
  const served = HTTP_ROUTES.filter((r) => r.path === template).map((r) => r.method);
  return fc
    .record({
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...served.map((m) => (m === 'ANY' ? 'POST' : m))) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      params: fc.tuple(...names(template).map(placeholder)),
      query,
      headers,
      body: fc.option(body, { nil: undefined }),
      caller: fc.constantFrom(...CALLERS),
    })
    .map(({ method, params, query: q, headers: h, body: b, caller }) => {
      const withBody = b !== undefined && method !== 'GET' && method !== 'HEAD';
      const out: Record<string, string> = { ...h };
      if (withBody && b.encoding) out['content-encoding'] = b.encoding;
      // Heads past the local gateway's parser limit (4 MiB) would meet Node's bare 431, not the service.
      const path = fill(template, params);
      return { method, path: path.length + q.length > HEAD_BUDGET ? path : `${path}${q}`, headers: out, body: withBody ? b.data : undefined, caller };
    });
}

/** Sends a request as it is: no normalization of the path, no added headers beyond Host and Content-Length. */
export function sendRaw(base: string, r: { method: string; path: string; headers: Record<string, string>; body?: Buffer }): Promise<FuzzAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: r.path,
        headers: { ...r.headers, ...(r.body ? { 'content-length': String(r.body.length) } : {}) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}
