/**
 * The routes of the `pages` function (spec api.md Conventions, Item pages and downloads): item pages, the
 * home page, discovery documents and icons. Pages answer GET and HEAD (the handler drops HEAD bodies).
 */
import { secondsToNextHour } from '../clock';
import { nameOfKey } from '../domain/items';
import { DEFAULT_MARKET } from '../domain/market';
import type { Route } from '../http/handler';
import type { ApiRequest, HttpResult } from '../http/types';
import { weakTag } from '../http/validators';
import { currentItemFiles, itemFileOf, itemOfKeyIn } from '../items/read';
import type { Services } from '../services';
import type { RouteKey } from '../topology';
import { agentsMd, apiCatalog, homePage, LINKSET_TYPE, llmsFullTxt, llmsTxt, SITEMAP_ITEMS, sitemapXml } from './discovery';
import { homeMarkets } from './home-markets';
import { itemHourCloses } from './hour-closes';
import { getIcon, getIconById } from './icons';
import { type ItemPageData, itemPageHtml, itemPageMarkdown, itemPageUrls, parseItemPath } from './item-page';
import { negotiatePage, type PageFormat } from './negotiate';
import { openApiDocument } from './openapi';
import { fullOpenApiDocument } from './openapi-full';
import { ItemPageQuery } from './openapi-pages';
import { referencePage } from './reference-page';
import { DOCS_CACHE, pageError, pageResult, textResult, withSiteScript } from './render';
import { itemSnapshotView } from './snapshot-view';

const PUBLIC = { kind: 'public', keyExempt: true } as const;
const formatOf = (req: ApiRequest): PageFormat => negotiatePage(req.headers.accept);

/** The data of an item page: the current item record, the anonymous hourly view, `now`. */
async function itemPageData(svc: Pick<Services, 'config' | 'clock' | 'catalogue' | 'market' | 'files'>, market: string, key: number): Promise<ItemPageData> {
  const ref = await currentItemFiles(svc);
  const [{ item, variant }, view] = await Promise.all([
    ref ? itemOfKeyIn(svc, ref, key) : { item: null, variant: undefined },
    itemSnapshotView(svc, market, key),
  ]);
  const data: ItemPageData = { market, key, item, row: view?.row ?? null, days: view?.days ?? [], now: svc.clock.now() };
  return variant ? { ...data, variant } : data;
}

/**
 * GET/HEAD `/item/<key>`, `/item/<key>/<slug>`, `/item/<key>.md` `?m=<market>`: malformed path 404, invalid
 * market 400, otherwise the page (also for keys never observed), cached until the next hour.
 */
async function itemPage(req: ApiRequest, svc: Pick<Services, 'config' | 'clock' | 'catalogue' | 'market' | 'files'>): Promise<HttpResult> {
  const path = parseItemPath(req.params.key, req.params.slug !== undefined);
  const negotiated = formatOf(req);
  const base = svc.config.publicBase;
  if (!path) return pageError(negotiated, base, 'not_found', 'No such page: an item page is /item/<key> with a valid item key.');
  const format: PageFormat = path.markdown ? 'markdown' : negotiated;
  const query = ItemPageQuery.safeParse(req.query);
  if (!query.success) return pageError(format, base, 'bad_market', 'Unknown market: m is forever.<normal|pvp|rp>.<alliance|horde>.us.');
  const market = query.data.m ?? DEFAULT_MARKET;
  const [data, hours] = await Promise.all([itemPageData(svc, market, path.key), itemHourCloses(svc, market, path.key, svc.clock.now())]);
  const urls = itemPageUrls(base, market, path.key);
  const page = withSiteScript(
    pageResult(
      format,
      { html: itemPageHtml(data, urls, hours), markdown: itemPageMarkdown(data, urls, hours) },
      `public, max-age=${secondsToNextHour(data.now)}`,
    ),
    svc.config.siteEntry,
  );
  return { ...page, headers: { ...page.headers, etag: itemPageTag(page, data.now) } };
}

/**
 * A weak tag (RFC 9110 8.8.1): the page is the hour's view, but its `ahf-item` JSON carries the request's
 * `now`; pages that differ only there are equivalent, so the tag leaves it out and a revalidation in the same
 * hour gets its 304. Anything else that changes (a name, a late reading, the next hour) changes the tag.
 */
function itemPageTag(page: HttpResult, now: number): string {
  const text = typeof page.body === 'string' ? page.body : '';
  return weakTag(String(page.headers?.['content-type'] ?? ''), text.replace(`"now":${now}`, '"now":0'));
}

const itemRoute: Route<'pages'> = { access: PUBLIC, handle: ({ req, svc }) => itemPage(req, svc) };

const home: Route<'pages'> = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const base = svc.config.publicBase;
    const { markets, cacheControl } = await homeMarkets(svc);
    const page = pageResult(formatOf(req), homePage(base, markets), cacheControl, 200, { link: `<${base}.well-known/api-catalog>; rel="api-catalog"` });
    return withSiteScript(page, svc.config.siteEntry);
  },
};

const reference: Route<'pages'> = {
  access: PUBLIC,
  async handle({ req, svc }) {
    // A document, not part of the app (the issue names the home and item pages): it stays script-free.
    return pageResult(formatOf(req), referencePage(svc.config.publicBase), DOCS_CACHE);
  },
};

const referenceMd: Route<'pages'> = {
  access: PUBLIC,
  async handle({ svc }) {
    return pageResult('markdown', referencePage(svc.config.publicBase), DOCS_CACHE);
  },
};

const text = (type: string, render: (base: string) => string): Route<'pages'> => ({
  access: PUBLIC,
  async handle({ svc }) {
    return textResult(type, render(svc.config.publicBase));
  },
});

/** The full document states the deployment's own push endpoint rule (config `push`). */
const fullDocument: Route<'pages'> = {
  access: PUBLIC,
  async handle({ svc }) {
    return textResult('application/json; charset=utf-8', JSON.stringify(fullOpenApiDocument(svc.config.publicBase, svc.config.push)));
  },
};

const sitemap: Route<'pages'> = {
  access: PUBLIC,
  async handle({ svc }) {
    const ref = await currentItemFiles(svc);
    const file = ref ? await itemFileOf(svc, ref) : null;
    const keys = file
      ? Object.keys(file.items)
          .map(Number)
          .filter((k) => nameOfKey(file, k) !== null)
          .slice(0, SITEMAP_ITEMS)
      : [];
    return textResult('application/xml; charset=utf-8', sitemapXml(svc.config.publicBase, keys));
  },
};

/** A page path of the manifest (each is served for GET and HEAD). */
type PagePath = RouteKey<'pages'> extends infer K ? (K extends `GET ${infer P}` ? P : never) : never;

/** The GET and HEAD route keys of each path, sharing one route. */
const getAndHead = <P extends PagePath>(paths: Record<P, Route<'pages'>>) =>
  Object.fromEntries(
    Object.entries<Route<'pages'>>(paths).flatMap(([path, route]) => [
      [`GET ${path}`, route],
      [`HEAD ${path}`, route],
    ]),
  ) as Record<`GET ${P}` | `HEAD ${P}`, Route<'pages'>>;

/** Route key (as in shared/topology.ts) → route; HEAD shares GET's route. */
export const pageRoutes = getAndHead({
  '/': home,
  '/item/{key}': itemRoute,
  '/item/{key}/{slug}': itemRoute,
  '/openapi.json': text('application/json; charset=utf-8', (b) => JSON.stringify(openApiDocument(b))),
  '/openapi.full.json': fullDocument,
  '/docs/api/reference': reference,
  '/docs/api/reference.md': referenceMd,
  '/.well-known/api-catalog': text(LINKSET_TYPE, (b) => JSON.stringify(apiCatalog(b))),
  '/llms.txt': text('text/plain; charset=utf-8', llmsTxt),
  '/llms-full.txt': text('text/plain; charset=utf-8', llmsFullTxt),
  '/sitemap.xml': sitemap,
  '/AGENTS.md': text('text/markdown; charset=utf-8', agentsMd),
  '/icons/{icon}': getIcon,
  '/icons/id/{fileId}': getIconById,
});
