/**
 * `/openapi.full.json` (issue 15.1, issue 12.5): the OpenAPI 3.1 description of every HTTP route of the
 * manifest (shared/topology.ts), generated from the zod schemas the routes parse with (shared/api/*.schemas.ts)
 * and their answer schemas, with each route's section and text from the endpoint directory
 * (shared/pages/reference.ts). `/openapi.json` stays the spec's hand-written integration subset. Pure.
 */
import * as z from 'zod';
import { accountDocs } from '../api/account.schemas';
import { bookUploadDocs } from '../api/book-upload.schemas';
import { catalogueDocs } from '../api/catalogue-upload.schemas';
import { ErrorBody, itemKeyJsonSchema, Market } from '../api/common.schemas';
import { environmentDocs } from '../api/environment.schemas';
import { itemDocs } from '../api/items.schemas';
import { marketBookDocs } from '../api/market-books.schemas';
import { marketFilesDocs } from '../api/market-files.schemas';
import { marketReadDocs } from '../api/market-reads.schemas';
import { pushDocs, putSubscriptionDoc } from '../api/push.schemas';
import type { RouteDoc } from '../api/route-doc';
import { settingsDocs } from '../api/settings.schemas';
import { type EndpointRule, PUSH_SERVICE_HOSTS } from '../domain/push-subscription';
import type { ErrorCode } from '../errors';
import { JSON_MAX_DEPTH } from '../http/bounds';
import { ERROR_STATUS } from '../http/status';
import { HTTP_ROUTES, type RouteKey } from '../topology';
import { errorCodesOf, GATEWAY_ERROR, gatewayMayAnswer, HEADERS, headersOf, layerAnswers, type Place, SECURITY_SCHEMES, securityOf } from './openapi-answers';
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
  at: { type: 'string', pattern: '^[0-9]{1,16}$', description: 'the book observation time, Unix ms', examples: ['1767225600000'] },
};
/** The item page's key (`.md` asks for Markdown); `/api/v1/` routes take the item key itself, as `/openapi.json` types it. */
const PAGE_KEY = { type: 'string', pattern: '^[0-9]{1,16}(\\.md)?$', description: 'an item key (`.md` for Markdown)', examples: ['2589'] };

const pathParams = (path: string): Json[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const key = name === 'item' || name === 'key';
    const schema = key && path.startsWith('/api/') ? itemKeyJsonSchema() : key ? PAGE_KEY : (PATH_PARAMS[name] ?? { type: 'string' });
    return { name, in: 'path', required: true, schema };
  });

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

/** The error body with `error` narrowed to the codes of one status (or, where the gateway may answer, its body). */
function errorContent(codes: readonly ErrorCode[], gateway: boolean): Json {
  const body = schemaOf(ErrorBody, 'output');
  const own = { ...body, properties: { ...(body.properties as Json), error: { type: 'string', enum: [...codes] } } };
  return { 'application/json': { schema: gateway ? { anyOf: [own, GATEWAY_ERROR] } : own } };
}

const TEXT = { schema: { type: 'string' } };

/**
 * The content of one error status: the JSON error body; pages that answer HTML also answer their errors as an
 * HTML or Markdown page (as the caller's Accept asks), the edge's 403 aside.
 */
function errorContentOf(place: Place, doc: RouteDoc, status: number, codes: readonly ErrorCode[]): Json {
  const content = errorContent(codes, gatewayMayAnswer(place, doc, status));
  const pageTypes = typeof doc.answerType === 'string' ? [doc.answerType] : (doc.answerType ?? []);
  if (place.api || status === 403 || !pageTypes.some((t) => t.startsWith('text/html'))) return content;
  return { ...content, 'text/html; charset=utf-8': TEXT, 'text/markdown; charset=utf-8': TEXT };
}

/** Error answers grouped by status, each with its codes and headers (openapi-answers.ts says which). */
function errorResponses(place: Place, doc: RouteDoc, head: boolean): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of errorCodesOf(place, doc)) byStatus.set(ERROR_STATUS[c], [...(byStatus.get(ERROR_STATUS[c]) ?? []), c]);
  const out: Json = {};
  // API Gateway's quota on the request line and headers (10240 bytes), before any route runs.
  byStatus.set(431, []);
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0]))
    if (status === 431)
      out['431'] = {
        description: 'Request Header Fields Too Large: the request line and headers passed 10240 bytes (too_large)',
        headers: headersOf(place, doc, status),
        ...(head ? {} : { content: errorContent(['too_large'], false) }),
      };
    else
      out[String(status)] = {
        description: list.join(', '),
        headers: headersOf(place, doc, status),
        ...(head ? {} : { content: errorContentOf(place, doc, status, list) }),
      };
  return out;
}

/** The success answer: its status (200, the download's 302, the live route's 101), headers and content. */
function successResponse(place: Place, doc: RouteDoc, head: boolean): Json {
  if (doc.status === 101)
    return {
      '101': {
        description:
          'Switching Protocols: the WebSocket of one market (`Upgrade: websocket`; a browser may pass its token as `?token=`). The messages are in the published files and live messages document.',
      },
    };
  if (doc.status === 302) return { '302': { description: 'Redirect to the file host', headers: headersOf(place, doc, 302) } };
  const headers = headersOf(place, doc, 200);
  if (head) return { '200': { description: "The GET answer's status and headers, no body", headers } };
  const types = doc.answerType === undefined ? ['application/json'] : typeof doc.answerType === 'string' ? [doc.answerType] : doc.answerType;
  const schema = doc.answer
    ? schemaOf(doc.answer, 'output')
    : types[0] === 'image/webp'
      ? { type: 'string', contentMediaType: 'image/webp' }
      : { type: 'string' };
  return { '200': { description: 'OK', headers, content: Object.fromEntries(types.map((t) => [t, { schema }])) } };
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
  const place: Place = { api: path.startsWith('/api/'), method, path };
  const params = [...pathParams(path), ...queryParams(doc.query)];
  const rules = doc.rules?.length ? `\n\nRules the schemas cannot state (a 400 may come from them): ${doc.rules.join('; ')}.` : '';
  return {
    operationId: operationId(method, path === '/' ? '/home' : path),
    summary:
      dir.text
        .replace(/\s*\(.*$/, '')
        .replace(/[.:]\s.*$/, '')
        .slice(0, 120) || dir.text,
    description: `${dir.text}\n\nAccess: ${dir.access}.${rules}`,
    tags: [dir.section],
    security: securityOf(doc, place.api),
    ...(params.length ? { parameters: params } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            // Every JSON body's nesting is bounded (shared/http/bounds.ts): stated for tools as an extension.
            description: `JSON nested at most ${JSON_MAX_DEPTH} levels (\`x-json-max-depth\`)`,
            'x-json-max-depth': JSON_MAX_DEPTH,
            content: { 'application/json': { schema: schemaOf(doc.body, 'input') } },
          },
        }
      : {}),
    ...(doc.rules?.length ? { 'x-rules-beyond-schema': [...doc.rules] } : {}),
    responses: { ...successResponse(place, doc, head), ...layerAnswers(place, doc, head), ...errorResponses(place, doc, head) },
  };
}

/** The push endpoints a deployment takes when none is named: the known push services, no loopback. */
const DEFAULT_PUSH: EndpointRule = { hosts: PUSH_SERVICE_HOSTS, loopback: false };

/** One document per base URL and push rule: the schemas never change while a function lives. */
const built = new Map<string, Json>();

/**
 * The full document for a public base URL (ends with `/`) and the deployment's push endpoint rule (its
 * config's `push`), which the subscription body's schema states.
 */
export function fullOpenApiDocument(publicBase: string, push: EndpointRule = DEFAULT_PUSH): Json {
  const key = JSON.stringify([publicBase, push.hosts, push.loopback]);
  const known = built.get(key);
  if (known) return known;
  const doc = buildDocument(publicBase, push);
  built.set(key, doc);
  return doc;
}

function buildDocument(publicBase: string, push: EndpointRule): Json {
  const docs: Record<string, RouteDoc> = { ...FULL_DOCS, 'PUT /api/v1/push/subscription': putSubscriptionDoc(push) };
  const paths: Record<string, Json> = {};
  for (const r of HTTP_ROUTES) {
    const doc = docs[`${r.method} ${r.path}`];
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
        'Every HTTP route of the service, generated from the zod schemas that validate its requests and answers. Answers are JSON; times are Unix ms; prices are copper per unit. Each operation states who may call it (`security`). The integration subset the spec defines is at /openapi.json.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: publicBase.replace(/\/$/, ''), description: 'this deployment' }],
    // Anonymous callers are welcome where an operation does not say otherwise.
    security: [{}, { apiKey: [] }, { deviceToken: [] }, { sessionToken: [] }, { sessionCookie: [] }],
    tags: sections.map((name) => ({ name, description: `${name} routes` })),
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, headers: HEADERS },
  };
}
