/**
 * Holds one HTTP exchange with the service to the OpenAPI documents it publishes (issue 24 point 10): the
 * answer's status must be documented for the operation the request reached, its body must match that status's
 * schema for its media type, every header it sends beyond the transport's must be declared (and match its
 * schema), a success must be allowed by the operation's own security, an anonymous 401 must come from an
 * operation that refuses anonymous callers, and a 400 must answer a request the document itself calls invalid.
 * `/openapi.full.json` covers every route; `/openapi.json` (the integration subset) is held to the same rules
 * where it describes the operation. Paths no route serves must answer the generic 404 / 405 (or, under
 * `/api/v1/`, the admission errors every request can get). The checks are pure: test/support/openapi-fetch.ts
 * runs them on every answer the integration suite's clients receive.
 */
import { gunzipSync } from 'node:zlib';
import { SiteHost } from '../../lib/local/gateways/site-host';
import { jsonDepth } from '../../shared/http/bounds';
import { Router } from '../../shared/http/router';
import { openApiDocument } from '../../shared/pages/openapi';
import { fullOpenApiDocument } from '../../shared/pages/openapi-full';
import { HTTP_ROUTES } from '../../shared/topology';
import { SchemaChecker } from './json-schema';

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are walked field by field
type Json = any;

/** One request and the answer it got, as a client saw them (the body as received: decompressed). */
export interface Exchange {
  method: string;
  url: URL;
  requestHeaders: Headers;
  requestBody?: Uint8Array | string;
  status: number;
  responseHeaders: Headers;
  body: string;
  /** The client followed a redirect: `status` and the rest are the final answer's, not this route's. */
  redirected?: boolean;
}

/** Headers of the transport (RFC 9110/9112 framing and metadata OpenAPI leaves to the media type); all else is declared. */
const TRANSPORT_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'date', 'connection', 'keep-alive']);

/** What every request under `/api/v1/` may be answered whatever its path (admission): DESIGN check order. */
const ADMISSION = new Map<number, string[]>([
  [401, ['unauthenticated']],
  [403, ['edge_only', 'bad_origin']],
  [429, ['rate_limited']],
  [503, ['unavailable']],
]);

const router = new Router(HTTP_ROUTES);

interface Docs {
  full: Json;
  subset: Json;
  fullChecker: SchemaChecker;
  subsetChecker: SchemaChecker;
}

const docsByBase = new Map<string, Docs>();

/** Holds answers from `origin` to these documents (what it serves at `/openapi.full.json` and `/openapi.json`). */
export function useDocuments(origin: string, full: Json, subset: Json): void {
  docsByBase.set(origin, { full, subset, fullChecker: new SchemaChecker(full), subsetChecker: new SchemaChecker(subset) });
}

export const hasDocuments = (origin: string): boolean => docsByBase.has(origin);

/** The documents of an origin: those it served, else (an origin without pages: the APIs without the edge) the ones built here. */
function docsFor(origin: string): Docs {
  if (!docsByBase.has(origin)) useDocuments(origin, fullOpenApiDocument(`${origin}/`), openApiDocument(`${origin}/`));
  return docsByBase.get(origin) as Docs;
}

/** The credential a request carries, named as the documents' security schemes name it (null: anonymous). */
export function credentialOf(headers: Headers): string | null {
  const auth = headers.get('authorization');
  if (auth) {
    const token = auth.replace(/^Bearer\s+/i, '');
    if (token.startsWith('ak_')) return 'apiKey';
    if (token.startsWith('svc_dev_')) return 'deviceToken';
    return 'sessionToken';
  }
  if (/(^|;\s*)__session=/.test(headers.get('cookie') ?? '')) return 'sessionCookie';
  return null;
}

const mediaType = (t: string): string => t.split(';')[0].trim().toLowerCase();

/** The document's content entry for a received Content-Type: the exact key, else the same media type. */
function contentFor(content: Json, received: string): [string, Json] | undefined {
  if (!content) return undefined;
  const exact = Object.entries(content).find(([k]) => k.toLowerCase() === received.toLowerCase());
  return (exact ?? Object.entries(content).find(([k]) => mediaType(k) === mediaType(received))) as [string, Json] | undefined;
}

/** An object of the document with its `$ref` followed. */
function deref(doc: Json, node: Json): Json {
  let n = node;
  while (n?.$ref)
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  return n;
}

/** A text parameter as the JSON value its schema types it (path and query values arrive as text). */
function coerce(doc: Json, schema: Json, text: string): unknown {
  const s = deref(doc, schema);
  const types: string[] = Array.isArray(s?.type) ? s.type : s?.type ? [s.type] : [];
  // The canonical text of a number (what a generated client sends): `1e3` or `007` stay text, which no integer schema takes.
  if (types.includes('integer') && /^-?(0|[1-9][0-9]*)$/.test(text)) return Number(text);
  if (types.includes('number') && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** Problems of the request by the document: an empty list means the document calls it valid. */
function requestProblems(x: Exchange, op: Json, params: Record<string, string>, doc: Json, checker: SchemaChecker): string[] {
  const out: string[] = [];
  for (const p of op.parameters ?? []) {
    const raw = p.in === 'path' ? params[p.name] : p.in === 'query' ? x.url.searchParams.get(p.name) : x.requestHeaders.get(p.name);
    if (raw === null || raw === undefined) {
      if (p.required) out.push(`${p.in} parameter ${p.name} is missing`);
      continue;
    }
    for (const e of checker.check(p.schema, coerce(doc, p.schema, raw))) out.push(`${p.in} parameter ${p.name}: ${e.problem}`);
  }
  const rb = op.requestBody;
  const raw = x.requestBody;
  if (rb) {
    if (raw === undefined || raw.length === 0) {
      if (rb.required) out.push('the body is missing');
      return out;
    }
    const type = x.requestHeaders.get('content-type') ?? '';
    const entry = contentFor(rb.content, type);
    if (!entry) return [...out, `the body's type ${type} is not one the operation takes`];
    let text: string;
    try {
      const bytes = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw);
      text = (/gzip/i.test(x.requestHeaders.get('content-encoding') ?? '') ? gunzipSync(bytes) : bytes).toString('utf8');
    } catch {
      return [...out, 'the body does not decompress'];
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [...out, 'the body is not JSON'];
    }
    const maxDepth = rb['x-json-max-depth'];
    if (typeof maxDepth === 'number' && jsonDepth(text, maxDepth + 1) > maxDepth) out.push(`the body nests deeper than ${maxDepth} levels`);
    for (const e of checker.check(entry[1].schema ?? true, body)) out.push(`body${e.at}: ${e.problem}`);
  } else if (raw !== undefined && raw.length > 0 && !['GET', 'HEAD', 'DELETE'].includes(x.method)) {
    out.push('the operation takes no body');
  }
  return out;
}

/** The answer held to one operation of one document. */
function answerProblems(x: Exchange, op: Json, doc: Json, checker: SchemaChecker, name: string, params: Record<string, string>): string[] {
  const out: string[] = [];
  const where = `${name} ${x.method} ${x.url.pathname}${x.url.search} → ${x.status}`;
  if (x.redirected) {
    if (!Object.keys(op.responses).some((s) => /^3\d\d$/.test(s))) out.push(`${where}: followed a redirect the operation does not document`);
    return out;
  }
  const response = op.responses[String(x.status)] ?? op.responses[`${String(x.status)[0]}XX`];
  if (!response) return [`${where}: status ${x.status} is not documented (documented: ${Object.keys(op.responses).join(', ')}); body ${x.body.slice(0, 200)}`];
  // Headers: every one the service sends is declared, and its value matches the declaration.
  const declared = new Map<string, Json>(Object.entries(response.headers ?? {}).map(([k, v]) => [k.toLowerCase(), deref(doc, v)]));
  for (const [name, value] of x.responseHeaders) {
    if (TRANSPORT_HEADERS.has(name)) continue;
    const h = declared.get(name);
    if (!h) {
      out.push(`${where}: header ${name} is sent but not declared`);
      continue;
    }
    for (const e of checker.check(h.schema ?? true, coerce(doc, h.schema, value))) out.push(`${where}: header ${name} ${JSON.stringify(value)} ${e.problem}`);
  }
  for (const [hname, h] of declared) if (h.required && !x.responseHeaders.has(hname)) out.push(`${where}: required header ${hname} is missing`);
  // Body.
  const noBody = x.method === 'HEAD' || x.status === 304 || x.status === 101;
  if (noBody) {
    if (x.body.length > 0) out.push(`${where}: answered a body where none is sent`);
  } else if (!response.content) {
    if (x.body.length > 0) out.push(`${where}: answered a body the document does not describe`);
  } else {
    const type = x.responseHeaders.get('content-type') ?? '';
    const entry = contentFor(response.content, type);
    if (!entry) out.push(`${where}: content type ${type} is not documented (${Object.keys(response.content).join(', ')})`);
    else if (mediaType(type) === 'application/json' || mediaType(type).endsWith('+json')) {
      let body: unknown;
      try {
        body = JSON.parse(x.body);
      } catch {
        out.push(`${where}: the body is not JSON: ${x.body.slice(0, 120)}`);
        return out;
      }
      for (const e of checker.check(entry[1].schema ?? true, body).slice(0, 5)) out.push(`${where}: body${e.at} ${e.problem}`);
    } else if (entry[1].schema) {
      // Text and binary media: a string, whatever its declared constraints (none of ours constrains text).
      for (const e of checker.check(entry[1].schema, x.body).slice(0, 5)) out.push(`${where}: body ${e.problem}`);
    }
  }
  // Security: what succeeded was allowed; an anonymous 401 came from an operation that refuses anonymous callers.
  const security: Json[] = op.security ?? doc.security ?? [{}];
  const anyone = security.some((r) => Object.keys(r).length === 0);
  const cred = credentialOf(x.requestHeaders);
  if (x.status < 400 && !anyone && !security.some((r) => cred !== null && cred in r))
    out.push(`${where}: succeeded for ${cred ?? 'an anonymous caller'}, which the operation's security (${JSON.stringify(security)}) does not allow`);
  if (x.status === 401 && cred === null && anyone) out.push(`${where}: refused an anonymous caller that the operation's security allows`);
  // A 400 answers a request the document calls invalid, or one that breaks a rule the operation states in words.
  if (x.status === 400 && !op['x-rules-beyond-schema'] && requestProblems(x, op, params, doc, checker).length === 0)
    out.push(`${where}: refused with 400 a request the document allows (${x.body.slice(0, 200)})`);
  return out;
}

/** A path no route serves: 404 / 405, or under `/api/v1/` an admission error. */
function unroutedProblems(x: Exchange, kind: 'not_found' | 'method_not_allowed'): string[] {
  const where = `${x.method} ${x.url.pathname} → ${x.status}`;
  const api = x.url.pathname.startsWith('/api/');
  const codes = new Map<number, string[]>([[kind === 'not_found' ? 404 : 405, [kind]], ...(api ? ADMISSION : [[403, ['edge_only']] as [number, string[]]])]);
  const allowed = codes.get(x.status);
  if (!allowed) return [`${where}: a path no route serves answered ${x.status}, not ${[...codes.keys()].join(', ')}`];
  if (x.method === 'HEAD' || !/json/.test(x.responseHeaders.get('content-type') ?? ''))
    return api && x.method !== 'HEAD' ? [`${where}: an API error that is not JSON`] : [];
  try {
    const body = JSON.parse(x.body);
    if (!allowed.includes(body?.error)) return [`${where}: error ${JSON.stringify(body?.error)} is not ${allowed.join(' or ')}`];
  } catch {
    return [`${where}: the body is not JSON`];
  }
  return [];
}

/** Every problem of one exchange (an empty list: the documents describe it). Control API paths are not the service's. */
export function checkExchange(x: Exchange): string[] {
  const path = x.url.pathname;
  // The control API, the local file host (`/cdn/`: CloudFront's own host in AWS) and the website's build
  // (`/assets/…`, the service worker: the site's bucket behind CloudFront in AWS) are not the service's API.
  if (path.startsWith('/_local/') || path.startsWith('/cdn/') || SiteHost.owns(path)) return [];
  const m = router.match(x.method, path);
  if (m.kind !== 'route') return unroutedProblems(x, m.kind);
  const docs = docsFor(x.url.origin);
  const method = x.method.toLowerCase();
  const out: string[] = [];
  const op = docs.full.paths[m.route.path]?.[method];
  if (!op) return [`${x.method} ${path}: the route ${m.routeKey} has no operation in /openapi.full.json`];
  out.push(...answerProblems(x, op, docs.full, docs.fullChecker, '/openapi.full.json', m.params));
  const sub = docs.subset.paths[m.route.path]?.[method];
  if (sub) out.push(...answerProblems(x, sub, docs.subset, docs.subsetChecker, '/openapi.json', m.params));
  return out;
}
