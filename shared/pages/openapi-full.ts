/**
 * `/openapi.full.json` (issue 15.1, issue 12.5): the OpenAPI 3.1 description of every HTTP route of the
 * manifest (shared/topology.ts), generated from the zod schemas the routes parse with (shared/api/*.schemas.ts)
 * and their answer schemas, with each route's section and text from the endpoint directory
 * (shared/pages/reference.ts). `/openapi.json` stays the spec's hand-written integration subset. Pure.
 */
import { z } from 'zod';
import { accountDocs } from '../api/account.schemas';
import { bookUploadDocs } from '../api/book-upload.schemas';
import { catalogueDocs } from '../api/catalogue-upload.schemas';
import { ErrorBody, Market } from '../api/common.schemas';
import { environmentDocs } from '../api/environment.schemas';
import { itemDocs } from '../api/items.schemas';
import { marketBookDocs } from '../api/market-books.schemas';
import { marketFilesDocs } from '../api/market-files.schemas';
import { marketReadDocs } from '../api/market-reads.schemas';
import { pushDocs } from '../api/push.schemas';
import type { RouteDoc } from '../api/route-doc';
import { settingsDocs } from '../api/settings.schemas';
import type { ErrorCode } from '../errors';
import { ERROR_STATUS } from '../http/status';
import { HTTP_ROUTES, type RouteKey } from '../topology';
import { pageDocs } from './openapi-pages';
import { ROUTE_DOCS as DIRECTORY } from './reference';

/** Every route's description; a route of the manifest missing here fails the typecheck (and test/unit/openapi-full.test.ts). */
export const FULL_DOCS = {
  ...environmentDocs,
  ...accountDocs,
  ...marketReadDocs,
  ...marketBookDocs,
  ...marketFilesDocs,
  ...itemDocs,
  ...settingsDocs,
  ...pushDocs,
  ...bookUploadDocs,
  ...catalogueDocs,
  ...pageDocs,
} satisfies Record<RouteKey, RouteDoc>;

type Json = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without its `$schema`. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

/** ANY (the retired scan route) stands for every method it answers. */
const ANY_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Path parameters by name; the examples are what the API reference's requests show (Linen Cloth, 2026-01-01). */
const PATH_PARAMS: Record<string, Json> = {
  market: schemaOf(Market, 'output'),
  item: { type: 'string', pattern: '^[0-9]{1,16}$', description: 'an item key', examples: ['2589'] },
  key: { type: 'string', pattern: '^[0-9]{1,16}(\\.md)?$', description: 'an item key (item pages: `.md` for Markdown)', examples: ['2589'] },
  at: { type: 'string', pattern: '^[0-9]{1,16}$', description: 'the book observation time, Unix ms', examples: ['1767225600000'] },
};

const pathParams = (path: string): Json[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: PATH_PARAMS[name] ?? { type: 'string' } }));

/** Query parameters from the route's query schema (text values; an optional or defaulted one is not required). */
function queryParams(query: z.ZodObject | undefined): Json[] {
  if (!query) return [];
  return Object.entries(query.shape).map(([name, s]) => {
    const field = s as z.ZodType;
    const schema = schemaOf(field, 'input');
    const description = typeof schema.description === 'string' ? schema.description : undefined;
    return { name, in: 'query', required: !field.safeParse(undefined).success, ...(description ? { description } : {}), schema };
  });
}

/** The error body with `error` narrowed to the codes of one status. */
function errorContent(codes: readonly ErrorCode[]): Json {
  const body = schemaOf(ErrorBody, 'output');
  return { 'application/json': { schema: { ...body, properties: { ...(body.properties as Json), error: { type: 'string', enum: [...codes] } } } } };
}

/**
 * Error answers grouped by status. Every route of a deployment refuses a request that did not come through its
 * CloudFront distribution (403 `edge_only`); every `/api/v1/` route also answers 401 (bad credential) and 429.
 */
function errorResponses(path: string, doc: RouteDoc, head: boolean): Json {
  const codes = new Set<ErrorCode>(doc.errors ?? []);
  codes.add('edge_only');
  if (path.startsWith('/api/v1/')) {
    codes.add('unauthenticated');
    codes.add('rate_limited');
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERROR_STATUS[c], [...(byStatus.get(ERROR_STATUS[c]) ?? []), c]);
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers = status === 429 ? { headers: { 'Retry-After': { description: 'seconds (60)', schema: { type: 'integer' } } } } : {};
    out[String(status)] = { description: list.join(', '), ...headers, ...(head ? {} : { content: errorContent(list) }) };
  }
  return out;
}

function successResponse(doc: RouteDoc, head: boolean): Json {
  if (doc.status === 302)
    return { '302': { description: 'Redirect to the file host', headers: { Location: { description: 'the file URL', schema: { type: 'string' } } } } };
  if (head) return { '200': { description: "The GET answer's status and headers, no body" } };
  if (doc.answer) return { '200': { description: 'OK', content: { 'application/json': { schema: schemaOf(doc.answer, 'output') } } } };
  if (doc.answerType) {
    const types = typeof doc.answerType === 'string' ? [doc.answerType] : doc.answerType;
    const schema = types[0] === 'image/webp' ? { type: 'string', contentMediaType: 'image/webp' } : { type: 'string' };
    return { '200': { description: 'OK', content: Object.fromEntries(types.map((t) => [t, { schema }])) } };
  }
  return {};
}

const operationId = (method: string, path: string): string =>
  `${method}${path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}` || method;

function operation(method: string, path: string, doc: RouteDoc): Json {
  const dir = DIRECTORY[path]?.[method === 'head' ? 'GET' : method.toUpperCase()] ?? DIRECTORY[path]?.ANY;
  if (!dir) throw new Error(`no directory entry for ${method} ${path}`);
  const head = method === 'head';
  const params = [...pathParams(path), ...queryParams(doc.query)];
  return {
    operationId: operationId(method, path === '/' ? '/home' : path),
    summary:
      dir.text
        .replace(/\s*\(.*$/, '')
        .replace(/[.:]\s.*$/, '')
        .slice(0, 120) || dir.text,
    description: `${dir.text}\n\nAccess: ${dir.access}.`,
    tags: [dir.section],
    ...(params.length ? { parameters: params } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(doc.body, 'input') } } } } : {}),
    responses: { ...successResponse(doc, head), ...errorResponses(path, doc, head) },
  };
}

/** One document per base URL: the schemas never change while a function lives. */
const built = new Map<string, Json>();

/** The full document for a public base URL (ends with `/`). */
export function fullOpenApiDocument(publicBase: string): Json {
  const known = built.get(publicBase);
  if (known) return known;
  const doc = buildDocument(publicBase);
  built.set(publicBase, doc);
  return doc;
}

function buildDocument(publicBase: string): Json {
  const paths: Record<string, Json> = {};
  for (const r of HTTP_ROUTES) {
    const doc: RouteDoc = FULL_DOCS[`${r.method} ${r.path}` as RouteKey];
    const methods = r.method === 'ANY' ? ANY_METHODS : [r.method.toLowerCase()];
    paths[r.path] ??= {};
    for (const m of methods) paths[r.path][m] = operation(m, r.path, doc);
  }
  const sections = [...new Set(Object.values(DIRECTORY).flatMap((byMethod) => Object.values(byMethod ?? {}).map((d) => d?.section ?? '')))].filter(Boolean);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market Data Service API (full)',
      version: '1.0.0',
      description:
        'Every HTTP route of the service, generated from the zod schemas that validate its requests and answers. Answers are JSON; times are Unix ms; prices are copper per unit. The integration subset the spec defines is at /openapi.json.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: publicBase.replace(/\/$/, ''), description: 'this deployment' }],
    // Anonymous callers are welcome on public routes; the routes say which features they need.
    security: [{}, { bearer: [] }, { session: [] }],
    tags: sections.map((name) => ({ name, description: `${name} routes` })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A session JWT, a device token (svc_dev_…) or an API key (ak_…)' },
        session: { type: 'apiKey', in: 'cookie', name: '__session', description: 'The website session cookie (same site)' },
      },
    },
  };
}
