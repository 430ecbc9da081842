/**
 * Item pages (spec api.md: Item pages and downloads): `/item/<key>[/<slug>]?m=<market>` and its Markdown at
 * `/item/<key>.md`, built from the item record and the anonymous hourly view of the market. Pure rendering.
 */
import type { DayPoint } from '../domain/candles';
import { inertText } from '../domain/inert-text';
import { isItemKey, KEY_BASE } from '../domain/item-key';
import type { ItemRecord, VariantRecord } from '../domain/items';
import { DEFAULT_MARKET, MARKETS } from '../domain/market';
import type { AuctionRow } from '../domain/merge';
import { dailyChart, dailyTableHtml, type HourClose, hourlyChart, hourlyTableHtml, type PriceHistory, priceHistoryMarkdown } from './item-charts';
import { copperHtml, formatCopper } from './money';
import { escapeHtml, escapeMarkdown, fencedJson, htmlDocument, scriptJson } from './render';

export { formatCopper };

/** `[id, price, quantity, at]` (spec: AuctionRow). */
export type PageRow = AuctionRow;
/** `[day, low, last, quantity]` (spec: Day point). */
export type PageDay = DayPoint;

/** The `ahf-item` JSON: `{market, key, item, variant?, row, days, now}`. */
export interface ItemPageData {
  market: string;
  key: number;
  item: ItemRecord | null;
  variant?: VariantRecord;
  row: PageRow | null;
  days: PageDay[];
  now: number;
}

export type ItemPath = { key: number; markdown: boolean } | null;

/**
 * Reads the key segment of an item page path: `<key>` or `<key>.md` (only without a slug); a key of 1..16
 * digits that is a valid item key. Anything else is a malformed path (404).
 */
export function parseItemPath(keySegment: string | undefined, hasSlug: boolean): ItemPath {
  const m = /^([0-9]{1,16})(\.md)?$/.exec(keySegment ?? '');
  if (!m || (m[2] && hasSlug)) return null;
  const key = Number(m[1]);
  return isItemKey(key) ? { key, markdown: m[2] !== undefined } : null;
}

/** A market's name for people: `Normal Alliance (US)`. */
export function marketTitle(market: string): string {
  const [, ruleset, faction, region] = market.split('.');
  const names: Record<string, string> = { pvp: 'PvP', rp: 'RP' };
  const cap = (s: string): string => names[s] ?? s.charAt(0).toUpperCase() + s.slice(1);
  return `${cap(ruleset)} ${cap(faction)} (${region.toUpperCase()})`;
}

const utc = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The key's name: a suffix or pet key's own name, else its item's, else `Item <item id>`. Inert (one line, no
 * control or bidirectional character) whatever its source, since catalogue names come from uploaders.
 */
export function pageName(d: Pick<ItemPageData, 'key' | 'item' | 'variant'>): string {
  return inertText(d.variant?.n ?? d.item?.n ?? `Item ${d.key % KEY_BASE}`);
}

/** One sentence on what the hourly view observed; says "No observed price is available" when it has no price. */
export function observationSummary(d: ItemPageData): string {
  const where = marketTitle(d.market);
  if (!d.row) return `No observed price is available for ${pageName(d)} on ${where}.`;
  const [, price, quantity, at] = d.row;
  if (price === null) return `No observed price is available: none was listed on ${where} at the last complete scan (${utc(at)}).`;
  return `Lowest buyout ${formatCopper(price)} per unit with ${quantity.toLocaleString('en-US')} listed on ${where}, observed ${utc(at)}.`;
}

export interface ItemPageUrls {
  page: string;
  markdown: string;
  publicBase: string;
}

/** Absolute URLs of the page and its Markdown (the market in `m` only when it is not the default). */
export function itemPageUrls(publicBase: string, market: string, key: number): ItemPageUrls {
  const q = market === DEFAULT_MARKET ? '' : `?m=${market}`;
  return { page: `${publicBase}item/${key}${q}`, markdown: `${publicBase}item/${key}.md${q}`, publicBase };
}

const priceText = (d: ItemPageData): string | null => (d.row && d.row[1] !== null ? formatCopper(d.row[1]) : null);

function iconUrl(publicBase: string, d: ItemPageData): string | null {
  const ic = d.item?.ic;
  const fi = d.variant?.fi ?? d.item?.fi;
  if (ic) return `${publicBase}icons/${ic}.webp`;
  return fi ? `${publicBase}icons/id/${fi}.webp` : null;
}

function facts(d: ItemPageData): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ['Market', `${marketTitle(d.market)} (${d.market})`],
    ['Item key', String(d.key)],
  ];
  const price = priceText(d);
  if (price && d.row)
    out.push(['Lowest buyout', `${price} per unit (${d.row[1]} copper)`], ['Listed', d.row[2].toLocaleString('en-US')], ['Observed', utc(d.row[3])]);
  if (d.item?.il !== undefined) out.push(['Item level', String(d.item.il)]);
  if (d.item?.q !== undefined || d.variant) out.push(['Quality', String(d.variant?.q ?? d.item?.q)]);
  if (d.item?.sell !== undefined) out.push(['Vendor sell price', formatCopper(d.item.sell)]);
  out.push(['Data as of', `${utc(d.now - (d.now % 3_600_000))} (hourly view)`]);
  return out;
}

/** The page's title and description: item name and price (spec: title and description/`og:` meta). */
export function itemPageMeta(d: ItemPageData): { title: string; description: string } {
  const name = pageName(d);
  const where = marketTitle(d.market);
  const price = priceText(d);
  const title = price ? `${name}: ${price} on ${where}` : `${name} on ${where}`;
  const description = price
    ? `${name} sells for ${price} per unit on the ${where} auction house (${d.row![2].toLocaleString('en-US')} listed), with daily and hourly closes of the last days.`
    : `${name} on the ${where} auction house: no observed price is available.`;
  return { title, description };
}

const link = (href: string, text: string): string => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

/** The price line under the heading: the hourly view's lowest buyout in coloured coins, or that there is none. */
function priceLine(d: ItemPageData): string {
  if (!d.row || d.row[1] === null) return '<p class="price">No observed price</p>';
  return `<p class="price">${copperHtml(d.row[1])} <span class="per">per unit</span></p>`;
}

/**
 * The HTML page: heading with icon, price and observation summary, the daily and hourly charts, facts, the
 * daily and hourly tables, links to other markets, and the `ahf-item` JSON (`hours` are the page's hourly
 * closes; they are drawn and tabled but are no part of `ahf-item`).
 */
export function itemPageHtml(d: ItemPageData, urls: ItemPageUrls, hours: readonly HourClose[] = []): string {
  const { title, description } = itemPageMeta(d);
  const name = pageName(d);
  const icon = iconUrl(urls.publicBase, d);
  const history: PriceHistory = { days: d.days, hours, now: d.now };
  const quality = d.variant?.q ?? d.item?.q;
  const sub = [marketTitle(d.market), d.item?.il !== undefined ? `Item level ${d.item.il}` : null, `Item key ${d.key}`].filter((x) => x !== null).join(' · ');
  const others = MARKETS.filter((m) => m !== d.market)
    .map((m) => `<li>${link(itemPageUrls(urls.publicBase, m, d.key).page, marketTitle(m))}</li>`)
    .join('\n');
  const body = [
    `<header class="site"><nav aria-label="Site">${link(urls.publicBase, 'Market Data Service')}<span class="crumb" aria-hidden="true">/</span><span class="crumb">${escapeHtml(marketTitle(d.market))}</span></nav></header>`,
    '<main>',
    `<div class="item-head${quality !== undefined ? ` q${escapeHtml(String(quality))}` : ''}">`,
    icon ? `<img src="${escapeHtml(icon)}" width="56" height="56" alt="">` : '',
    `<div>\n<h1>${escapeHtml(name)}</h1>\n<p class="sub">${escapeHtml(sub)}</p>\n</div>`,
    '</div>',
    '<section class="summary card" aria-label="Price">',
    priceLine(d),
    `<p id="observation">${escapeHtml(observationSummary(d))}</p>`,
    '</section>',
    '<section class="charts" aria-label="Price history">',
    `<figure class="card">\n<figcaption>Daily close</figcaption>\n${dailyChart(history, name)}\n</figure>`,
    `<figure class="card">\n<figcaption>Hourly close</figcaption>\n${hourlyChart(history, name)}\n</figure>`,
    '</section>',
    `<p>${link(`#/market/item?key=${d.key}&m=${d.market}`, 'Interactive chart, live prices and this item in the six markets')}</p>`,
    '<h2>Details</h2>',
    '<dl class="facts card">',
    ...facts(d).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`),
    '</dl>',
    '<h2>Recent days</h2>',
    `<div class="table-scroll">${dailyTableHtml(history)}</div>`,
    `<details>\n<summary>Hourly closes</summary>\n<div class="table-scroll">${hourlyTableHtml(history)}</div>\n</details>`,
    '<h2>Other markets</h2>',
    `<ul class="pills">\n${others}\n</ul>`,
    `<footer><p>${link(urls.markdown, 'Markdown')} · ${link(`${urls.publicBase}api/v1/ah/${d.market}/${d.key}`, 'JSON API')} · ${link(`${urls.publicBase}docs/api/reference`, 'API reference')} · Prices are the hourly view, in copper: 100c = 1s, 100s = 1g.</p></footer>`,
    '</main>',
    `<script type="application/json" id="ahf-item">${scriptJson(d)}</script>`,
  ]
    .filter((l) => l !== '')
    .join('\n');
  const og = icon ? `<meta property="og:image" content="${escapeHtml(icon)}">` : '';
  return htmlDocument({ title, description, url: urls.page, markdownUrl: urls.markdown, body, head: og });
}

/** The Markdown page: the same public facts, the daily and hourly closes as tables. */
export function itemPageMarkdown(d: ItemPageData, urls: ItemPageUrls, hours: readonly HourClose[] = []): string {
  const lines = [
    `# ${escapeMarkdown(pageName(d))}`,
    '',
    escapeMarkdown(observationSummary(d)),
    '',
    ...facts(d).map(([k, v]) => `- ${k}: ${escapeMarkdown(v)}`),
    '',
  ];
  lines.push(...priceHistoryMarkdown({ days: d.days, hours, now: d.now }));
  lines.push(
    '',
    '## Links',
    '',
    `- [This page (HTML)](${urls.page})`,
    `- [JSON API](${urls.publicBase}api/v1/ah/${d.market}/${d.key})`,
    `- [API reference](${urls.publicBase}docs/api/reference.md)`,
    `- [llms.txt](${urls.publicBase}llms.txt)`,
  );
  for (const m of MARKETS.filter((x) => x !== d.market)) lines.push(`- [${marketTitle(m)}](${itemPageUrls(urls.publicBase, m, d.key).markdown})`);
  lines.push('', '```json', fencedJson(d), '```', '');
  return lines.join('\n');
}
