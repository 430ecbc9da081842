/**
 * Discovery documents (spec api.md Conventions: public, no credentials): the home page, the RFC 9727 API
 * catalog, `/llms.txt`, `/llms-full.txt`, `/sitemap.xml` and `/AGENTS.md`. Pure: documents for a base URL (and,
 * for the home page, the markets' most listed items).
 */
import { MARKETS } from '../domain/market';
import type { HomeMarket } from './home-markets';
import { itemPageUrls, marketTitle } from './item-page';
import { copperHtml, formatCopper } from './money';
import { directoryMarkdown } from './reference';
import { escapeHtml, escapeMarkdown, htmlDocument } from './render';

/** RFC 9727 media type of the catalog (a linkset with the API catalog profile). */
export const LINKSET_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

const SUMMARY =
  'Price and depth data of the auction houses of six game markets: hourly public prices and daily candles for everyone, live prices, depth and order books for contributors and premium accounts.';

/** `/.well-known/api-catalog`: one linkset entry for the API, pointing at its description and docs (RFC 9727, RFC 9264). */
export function apiCatalog(publicBase: string): Record<string, unknown> {
  return {
    linkset: [
      {
        anchor: `${publicBase}api/v1/`,
        'service-desc': [
          { href: `${publicBase}openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' },
          { href: `${publicBase}openapi.full.json`, type: 'application/vnd.oai.openapi+json;version=3.1' },
        ],
        'service-doc': [
          { href: `${publicBase}docs/api/reference`, type: 'text/html' },
          { href: `${publicBase}docs/api/reference.md`, type: 'text/markdown' },
        ],
        'service-meta': [{ href: `${publicBase}llms.txt`, type: 'text/plain' }],
        status: [{ href: `${publicBase}api/v1/config`, type: 'application/json' }],
      },
    ],
  };
}

const docLinks = (b: string): string[] => [
  `- [API reference](${b}docs/api/reference.md): every endpoint with its access rule`,
  `- [OpenAPI description](${b}openapi.json): the integration subset (market summaries, item data, item prices, daily candles, book uploads)`,
  `- [Full OpenAPI description](${b}openapi.full.json): every route, generated from the schemas that validate requests and answers`,
  `- [API catalog](${b}.well-known/api-catalog): RFC 9727 linkset`,
  `- [AGENTS.md](${b}AGENTS.md): how software agents should use the service`,
];

/** `/llms.txt` (llmstxt.org): what the service is and where its machine-readable documents are. */
export function llmsTxt(publicBase: string): string {
  return [
    '# Market Data Service',
    '',
    `> ${SUMMARY}`,
    '',
    'Answers are JSON; times are Unix milliseconds; prices are integers in copper per unit (10,000 copper = 1 gold). Markets are `forever.<normal|pvp|rp>.<alliance|horde>.us`. Item pages are `/item/<key>?m=<market>`, Markdown at `/item/<key>.md`.',
    '',
    '## Docs',
    '',
    ...docLinks(publicBase),
    '',
    '## Data',
    '',
    `- [Market summaries](${publicBase}api/v1/ah): every market with data (hourly view for anonymous callers)`,
    `- [Item data](${publicBase}api/v1/items): names, qualities, classes and icons of tradable items`,
    ...MARKETS.map((m) => `- [${marketTitle(m)} hourly snapshot](${publicBase}api/v1/ah/${m}/snapshot)`),
    '',
    '## Optional',
    '',
    `- [Full guide](${publicBase}llms-full.txt): this file plus the complete endpoint directory`,
    '',
  ].join('\n');
}

/** `/llms-full.txt`: the guide, the agent rules and the whole endpoint directory in one file. */
export function llmsFullTxt(publicBase: string): string {
  return [llmsTxt(publicBase), agentsMd(publicBase), directoryMarkdown(publicBase)].join('\n---\n\n');
}

/** `/AGENTS.md`: how software agents should use the service. */
export function agentsMd(publicBase: string): string {
  return [
    '# Agents',
    '',
    'Guidance for software agents and integrations using this service.',
    '',
    '## Read data',
    '',
    `- Prefer the API and the published files over the HTML pages: start with \`GET ${publicBase}api/v1/ah\` and \`GET ${publicBase}api/v1/ah/<market>/snapshot\`; the snapshot is one file per market and hour.`,
    '- Item names and icons come from `GET /api/v1/items` (one file per build; cache it, it changes at most every 10 minutes).',
    '- Pages answer Markdown when asked: send `Accept: text/markdown` or use `/item/<key>.md`.',
    '- Anonymous answers are the hourly view: fetch them once per hour, not more often.',
    '',
    '## Credentials and limits',
    '',
    '- Send `Authorization: Bearer <API key>`; keys need `api.read` for reads (public snapshots, item data and icons aside) and `api.upload` for uploads.',
    "- A key has only those of its user's features its scopes name (an empty scope list: none), and the limits that go with them (`historyDays` above 7 needs `prices.live`, `depth` and `books`); `GET /api/v1/me` lists both.",
    '- Respect `429 rate_limited` and its `Retry-After: 60`; stop retrying on 401 and 403.',
    '- Never guess file URLs: request only files an answer, a pointer or a live message named (a 404 is cached at the edge).',
    '',
    '## Uploads',
    '',
    '- Upload whole order books with `POST /api/v1/ah/books` (at most one per market every 5 minutes); never fabricate entries from price summaries.',
    '- The service cannot bid, buy, post or cancel auctions.',
    '',
    ...docLinks(publicBase),
    '',
  ].join('\n');
}

/** `/sitemap.xml`: public pages only (home, API reference, item pages); private application routes never appear. */
export function sitemapXml(publicBase: string, itemKeys: readonly number[]): string {
  const url = (loc: string, freq: string) => `<url><loc>${escapeHtml(loc)}</loc><changefreq>${freq}</changefreq></url>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    url(publicBase, 'daily'),
    url(`${publicBase}docs/api/reference`, 'weekly'),
    ...itemKeys.map((k) => url(`${publicBase}item/${k}`, 'hourly')),
    '</urlset>',
    '',
  ].join('\n');
}

/** A sitemap file holds at most 50000 URLs; the two fixed pages leave room for this many item pages. */
export const SITEMAP_ITEMS = 49_990;

const utcHour = (ms: number): string => `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00 UTC`;

/** The home page in both formats: each market's most listed items linking to their item pages, then the docs. */
export function homePage(publicBase: string, markets: readonly HomeMarket[] = []): { html: string; markdown: string } {
  const byMarket = new Map(markets.map((m) => [m.market, m]));
  const sections = MARKETS.map((market) => ({
    market,
    title: marketTitle(market),
    data: byMarket.get(market) ?? { market, at: null, top: [] },
    json: `${publicBase}api/v1/ah/${market}/snapshot`,
    page: (key: number) => itemPageUrls(publicBase, market, key).page,
  }));
  const intro = (m: HomeMarket): string => (m.at === null || m.top.length === 0 ? 'No prices yet.' : `Most listed items, hourly view of ${utcHour(m.at)}:`);
  const markdown = [
    '# Market Data Service',
    '',
    SUMMARY,
    '',
    '## Markets',
    '',
    ...sections.flatMap((s) => [
      `### ${s.title}`,
      '',
      intro(s.data),
      '',
      ...s.data.top.map(
        (t, i) => `${i + 1}. [${escapeMarkdown(t.name)}](${s.page(t.key)}): ${formatCopper(t.price)}, ${t.quantity.toLocaleString('en-US')} listed`,
      ),
      ...(s.data.top.length ? [''] : []),
      ...(s.data.at === null ? [] : [`Hourly snapshot (JSON): ${s.json}`, '']),
    ]),
    '## Documentation',
    '',
    ...docLinks(publicBase),
    `- [llms.txt](${publicBase}llms.txt)`,
    '',
  ].join('\n');
  const link = (href: string, text: string): string => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  const marketCard = (s: (typeof sections)[number]): string =>
    [
      `<section class="card" aria-labelledby="m-${s.market.replace(/\./g, '-')}">`,
      `<h3 id="m-${s.market.replace(/\./g, '-')}">${escapeHtml(s.title)}</h3>`,
      `<p class="muted">${escapeHtml(intro(s.data))}</p>`,
      s.data.top.length
        ? `<ol>\n${s.data.top.map((t) => `<li><div class="row">${link(s.page(t.key), t.name)}<span>${copperHtml(t.price)}</span></div><div class="muted">${t.quantity.toLocaleString('en-US')} listed</div></li>`).join('\n')}\n</ol>`
        : '',
      s.data.at === null ? '' : `<p class="muted">${link(s.json, 'Hourly snapshot (JSON)')}</p>`,
      '</section>',
    ]
      .filter((l) => l !== '')
      .join('\n');
  const body = [
    `<header class="site"><nav aria-label="Site">${link(publicBase, 'Market Data Service')}</nav></header>`,
    '<main>',
    '<h1>Market Data Service</h1>',
    `<p>${escapeHtml(SUMMARY)}</p>`,
    '<h2>Markets</h2>',
    '<p class="muted">Prices are per unit (100c = 1s, 100s = 1g) with the number of units listed; each name opens the item\'s page.</p>',
    `<div class="markets">\n${sections.map(marketCard).join('\n')}\n</div>`,
    `<p>${link('#/market', 'Search items, compare the six markets and open interactive charts')}</p>`,
    '<h2>Documentation</h2>',
    '<ul>',
    `<li>${link(`${publicBase}docs/api/reference`, 'API reference')}</li>`,
    `<li>${link(`${publicBase}openapi.json`, 'OpenAPI description')}</li>`,
    `<li>${link(`${publicBase}openapi.full.json`, 'Full OpenAPI description (every route)')}</li>`,
    `<li>${link(`${publicBase}.well-known/api-catalog`, 'API catalog')}</li>`,
    `<li>${link(`${publicBase}llms.txt`, 'llms.txt')}</li>`,
    `<li>${link(`${publicBase}AGENTS.md`, 'AGENTS.md')}</li>`,
    '</ul>',
    '</main>',
  ].join('\n');
  const html = htmlDocument({ title: 'Market Data Service', description: SUMMARY, url: publicBase, body });
  return { html, markdown };
}
