/**
 * Item pages (spec api.md: Item pages and downloads): `/item/<key>[/<slug>]?m=<market>` and its Markdown at
 * `/item/<key>.md`, built from the item record and the anonymous hourly view of the market. Pure rendering.
 */
import type { DayPoint } from '../domain/candles';
import { DEFAULT_MARKET, MARKETS } from '../domain/market';
import type { AuctionRow } from '../domain/merge';
import { KEY_BASE, isItemKey } from '../domain/item-key';
import type { ItemRecord, VariantRecord } from '../domain/items';
import { escapeHtml, escapeMarkdown, htmlDocument, scriptJson } from './render';

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

/** Copper as `12,345g 67s 89c` (10,000 copper = 1 gold), leading zero units left out. */
export function formatCopper(copper: number): string {
  const g = Math.floor(copper / 10000);
  const s = Math.floor((copper % 10000) / 100);
  const c = copper % 100;
  const parts: string[] = [];
  if (g > 0) parts.push(`${g.toLocaleString('en-US')}g`);
  if (g > 0 || s > 0) parts.push(`${s}s`);
  parts.push(`${c}c`);
  return parts.join(' ');
}

const utc = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const dayText = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** The key's name: a suffix or pet key's own name, else its item's, else `Item <item id>`. */
export function pageName(d: Pick<ItemPageData, 'key' | 'item' | 'variant'>): string {
  return d.variant?.n ?? d.item?.n ?? `Item ${d.key % KEY_BASE}`;
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
  if (price && d.row) out.push(['Lowest buyout', `${price} per unit (${d.row[1]} copper)`], ['Listed', d.row[2].toLocaleString('en-US')], ['Observed', utc(d.row[3])]);
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
    ? `${name} sells for ${price} per unit on the ${where} auction house (${d.row![2].toLocaleString('en-US')} listed), with daily lows and closes of the last days.`
    : `${name} on the ${where} auction house: no observed price is available.`;
  return { title, description };
}

/** The HTML page: heading, observation summary, facts, recent days, links to other markets, and the `ahf-item` JSON. */
export function itemPageHtml(d: ItemPageData, urls: ItemPageUrls): string {
  const { title, description } = itemPageMeta(d);
  const icon = iconUrl(urls.publicBase, d);
  const days = d.days.length
    ? [
        '<table>',
        '<thead><tr><th>Day (UTC)</th><th>Low</th><th>Last</th><th>Quantity</th></tr></thead>',
        '<tbody>',
        ...[...d.days].reverse().map(([day, low, last, q]) => `<tr><td>${dayText(day)}</td><td>${formatCopper(low)}</td><td>${formatCopper(last)}</td><td>${q}</td></tr>`),
        '</tbody>',
        '</table>',
      ].join('\n')
    : '<p>No daily prices in the last days.</p>';
  const others = MARKETS.filter((m) => m !== d.market)
    .map((m) => `<li><a href="${escapeHtml(itemPageUrls(urls.publicBase, m, d.key).page)}">${escapeHtml(marketTitle(m))}</a></li>`)
    .join('\n');
  const body = [
    '<main>',
    `<h1>${icon ? `<img src="${escapeHtml(icon)}" width="56" height="56" alt=""> ` : ''}${escapeHtml(pageName(d))}</h1>`,
    `<p id="observation">${escapeHtml(observationSummary(d))}</p>`,
    '<dl>',
    ...facts(d).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`),
    '</dl>',
    '<h2>Recent days</h2>',
    days,
    '<h2>Other markets</h2>',
    `<ul>\n${others}\n</ul>`,
    `<p><a href="${escapeHtml(urls.markdown)}">Markdown</a> · <a href="${escapeHtml(`${urls.publicBase}api/v1/ah/${d.market}/${d.key}`)}">JSON API</a> · <a href="${escapeHtml(`${urls.publicBase}docs/api/reference`)}">API reference</a></p>`,
    '</main>',
    `<script type="application/json" id="ahf-item">${scriptJson(d)}</script>`,
  ].join('\n');
  const og = icon ? `<meta property="og:image" content="${escapeHtml(icon)}">` : '';
  return htmlDocument({ title, description, url: urls.page, markdownUrl: urls.markdown, body, head: og });
}

/** The Markdown page: the same public facts. */
export function itemPageMarkdown(d: ItemPageData, urls: ItemPageUrls): string {
  const lines = [`# ${escapeMarkdown(pageName(d))}`, '', escapeMarkdown(observationSummary(d)), '', ...facts(d).map(([k, v]) => `- ${k}: ${escapeMarkdown(v)}`), ''];
  lines.push('## Recent days', '');
  if (d.days.length) {
    lines.push('| Day (UTC) | Low | Last | Quantity |', '|---|---|---|---|');
    for (const [day, low, last, q] of [...d.days].reverse()) lines.push(`| ${dayText(day)} | ${formatCopper(low)} | ${formatCopper(last)} | ${q} |`);
  } else {
    lines.push('No daily prices in the last days.');
  }
  lines.push('', '## Links', '', `- [This page (HTML)](${urls.page})`, `- [JSON API](${urls.publicBase}api/v1/ah/${d.market}/${d.key})`, `- [API reference](${urls.publicBase}docs/api/reference.md)`, `- [llms.txt](${urls.publicBase}llms.txt)`);
  for (const m of MARKETS.filter((x) => x !== d.market)) lines.push(`- [${marketTitle(m)}](${itemPageUrls(urls.publicBase, m, d.key).markdown})`);
  // A backtick in a name must not close the fence; \u0060 is the same JSON.
  lines.push('', '```json', JSON.stringify(d).replace(/`/g, '\\u0060'), '```', '');
  return lines.join('\n');
}
