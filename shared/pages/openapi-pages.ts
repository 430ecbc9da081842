/**
 * What the generated OpenAPI document says of the `pages` function's routes (spec api.md Conventions, Item
 * pages): media types, the item page's `?m`, and their errors. Each path answers GET and HEAD alike (HEAD:
 * same status and headers, no body).
 */
import * as z from 'zod';
import { Market } from '../api/common.schemas';
import type { DocsOf, RouteDoc } from '../api/route-doc';
import type { RouteKey } from '../topology';

type PagePath = RouteKey<'pages'> extends infer K ? (K extends `GET ${infer P}` ? P : never) : never;

const HTML = 'text/html; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';
const JSON_TYPE = 'application/json';

/** `?m`: the item page's market (default forever.normal.alliance.us); an unknown one is 400 `bad_market`. */
export const ItemPageQuery = z.object({ m: Market.optional().describe('the market (default forever.normal.alliance.us)') });

/** Every page is storable by a cache: it carries an `ETag` and answers 304 to a matching `If-None-Match`. */
const page = (answerType: string | readonly string[], extra: Partial<RouteDoc> = {}): RouteDoc => ({ answerType, cached: true, ...extra });

/** An OpenAPI 3.1 document (what `/openapi.json` and `/openapi.full.json` answer). */
const OpenApiDocument = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.[0-9]+$/),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    servers: z.array(z.looseObject({ url: z.string() })),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('an OpenAPI 3.1 document');
/** RFC 9727's API catalog: an RFC 9264 linkset of the API's anchor with its description and docs links. */
const Link = z.looseObject({ href: z.string(), type: z.string().optional() });
const ApiCatalog = z.object({
  linkset: z.array(z.looseObject({ anchor: z.string(), 'service-desc': z.array(Link).optional(), 'service-doc': z.array(Link).optional() })),
});
const itemPage = page([HTML, MARKDOWN], { query: ItemPageQuery, errors: ['bad_market', 'not_found'] });

const PAGES: Record<PagePath, RouteDoc> = {
  '/': page([HTML, MARKDOWN]),
  '/item/{key}': itemPage,
  '/item/{key}/{slug}': itemPage,
  '/openapi.json': page(JSON_TYPE, { answer: OpenApiDocument }),
  '/openapi.full.json': page(JSON_TYPE, { answer: OpenApiDocument }),
  '/docs/api/reference': page([HTML, MARKDOWN]),
  '/docs/api/reference.md': page(MARKDOWN),
  '/.well-known/api-catalog': page('application/linkset+json', { answer: ApiCatalog }),
  '/llms.txt': page('text/plain; charset=utf-8'),
  '/llms-full.txt': page('text/plain; charset=utf-8'),
  '/sitemap.xml': page('application/xml; charset=utf-8'),
  '/AGENTS.md': page(MARKDOWN),
  '/icons/{icon}': page('image/webp', { errors: ['not_found'] }),
  '/icons/id/{fileId}': page('image/webp', { errors: ['not_found'] }),
};

/** GET and HEAD of every page path. */
export const pageDocs = Object.fromEntries(
  Object.entries<RouteDoc>(PAGES).flatMap(([path, doc]) => [
    [`GET ${path}`, doc],
    // HEAD answers GET's status and headers without the body, so without its schema.
    [`HEAD ${path}`, { ...doc, answer: undefined }],
  ]),
) as Record<`GET ${PagePath}` | `HEAD ${PagePath}`, RouteDoc> satisfies DocsOf<'pages'>;
