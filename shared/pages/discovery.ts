/**
 * Discovery documents (spec api.md Conventions: public, no credentials): the home page, the RFC 9727 API
 * catalog, `/llms.txt`, `/llms-full.txt`, `/sitemap.xml` and `/AGENTS.md`. Pure: documents for a base URL.
 */
import { MARKETS } from '../domain/market';
import { marketTitle } from './item-page';
import { referenceMarkdown } from './reference';
import { escapeHtml, htmlDocument } from './render';

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
        'service-desc': [{ href: `${publicBase}openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' }],
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
  return [llmsTxt(publicBase), agentsMd(publicBase), referenceMarkdown(publicBase)].join('\n---\n\n');
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

/** The home page in both formats. */
export function homePage(publicBase: string): { html: string; markdown: string } {
  const markets = MARKETS.map((m) => [marketTitle(m), `${publicBase}api/v1/ah/${m}/snapshot`] as const);
  const markdown = [
    '# Market Data Service',
    '',
    SUMMARY,
    '',
    '## Markets',
    '',
    ...markets.map(([t, u]) => `- [${t}](${u})`),
    '',
    '## Documentation',
    '',
    ...docLinks(publicBase),
    `- [llms.txt](${publicBase}llms.txt)`,
    '',
  ].join('\n');
  const body = [
    '<main>',
    '<h1>Market Data Service</h1>',
    `<p>${escapeHtml(SUMMARY)}</p>`,
    '<h2>Markets</h2>',
    '<ul>',
    ...markets.map(([t, u]) => `<li><a href="${escapeHtml(u)}">${escapeHtml(t)}</a></li>`),
    '</ul>',
    '<h2>Documentation</h2>',
    '<ul>',
    `<li><a href="${escapeHtml(publicBase)}docs/api/reference">API reference</a></li>`,
    `<li><a href="${escapeHtml(publicBase)}openapi.json">OpenAPI description</a></li>`,
    `<li><a href="${escapeHtml(publicBase)}.well-known/api-catalog">API catalog</a></li>`,
    `<li><a href="${escapeHtml(publicBase)}llms.txt">llms.txt</a></li>`,
    `<li><a href="${escapeHtml(publicBase)}AGENTS.md">AGENTS.md</a></li>`,
    '</ul>',
    '</main>',
  ].join('\n');
  const html = htmlDocument({ title: 'Market Data Service', description: SUMMARY, url: publicBase, body });
  return { html, markdown };
}
