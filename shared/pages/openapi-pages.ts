/**
 * What the generated OpenAPI document says of the `pages` function's routes (spec api.md Conventions, Item
 * pages): media types, the item page's `?m`, and their errors. Each path answers GET and HEAD alike (HEAD:
 * same status and headers, no body).
 */
import { z } from 'zod';
import { Market } from '../api/common.schemas';
import type { DocsOf, RouteDoc } from '../api/route-doc';
import type { RouteKey } from '../topology';

type PagePath = RouteKey<'pages'> extends infer K ? (K extends `GET ${infer P}` ? P : never) : never;

const HTML = 'text/html; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';
const JSON_TYPE = 'application/json';

/** `?m`: the item page's market (default forever.normal.alliance.us); an unknown one is 400 `bad_market`. */
export const ItemPageQuery = z.object({ m: Market.optional().describe('the market (default forever.normal.alliance.us)') });

const page = (answerType: string | readonly string[], extra: Partial<RouteDoc> = {}): RouteDoc => ({ answerType, ...extra });
const itemPage = page([HTML, MARKDOWN], { query: ItemPageQuery, errors: ['bad_market', 'not_found'] });

const PAGES: Record<PagePath, RouteDoc> = {
  '/': page([HTML, MARKDOWN]),
  '/item/{key}': itemPage,
  '/item/{key}/{slug}': itemPage,
  '/openapi.json': page(JSON_TYPE),
  '/openapi.full.json': page(JSON_TYPE),
  '/docs/api/reference': page([HTML, MARKDOWN]),
  '/docs/api/reference.md': page(MARKDOWN),
  '/.well-known/api-catalog': page('application/linkset+json'),
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
    [`HEAD ${path}`, doc],
  ]),
) as Record<`GET ${PagePath}` | `HEAD ${PagePath}`, RouteDoc> satisfies DocsOf<'pages'>;
