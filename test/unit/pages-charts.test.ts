import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../shared/clock';
import { homePage } from '../../shared/pages/discovery';
import { mostListed } from '../../shared/pages/home-markets';
import { CHART_HOURS, chartHours, type HourClose } from '../../shared/pages/item-charts';
import { type ItemPageData, itemPageHtml, itemPageMarkdown, itemPageUrls } from '../../shared/pages/item-page';
import { copperHtml, copperLabel, formatCopper } from '../../shared/pages/money';
import { niceStep, priceChartSvg, priceTicks } from '../../shared/pages/price-chart';
import { htmlDocument } from '../../shared/pages/render';
import { PAGE_CSS } from '../../shared/pages/style';

const BASE = 'https://example.test/';
const M = 'forever.pvp.horde.us';
const NOW = Date.UTC(2026, 10, 9, 13, 25);
const TODAY = Math.floor(NOW / DAY_MS);
const EVIL = '</title><script>alert(1)</script><img src=x onerror=alert(2)>"\'&';

const page = (over: Partial<ItemPageData> = {}): ItemPageData => ({
  market: M,
  key: 2589,
  item: { n: 'Linen Cloth', q: 2, il: 5, c: 7, sc: 5, ic: 'inv_fabric_linen_01' },
  row: [2589, 1234567, 340, NOW - 35 * 60_000],
  days: [
    [TODAY - 2, 1_100_000, 1_150_000, 200],
    [TODAY - 1, 1_180_000, 1_250_000, 310],
    [TODAY, 1_200_000, 1_234_567, 340],
  ],
  now: NOW,
  ...over,
});
const hourStart = Math.floor(NOW / HOUR_MS) * HOUR_MS;
const HOURS: HourClose[] = [
  [hourStart - 5 * HOUR_MS, 1_210_000, 300],
  [hourStart - 3 * HOUR_MS, 1_220_000, 320],
  [hourStart - HOUR_MS, 1_234_567, 340],
];
const urls = itemPageUrls(BASE, M, 2589);
const svgOf = (html: string, id: string): string => new RegExp(`<svg class="chart" id="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? '';
const polylinePoints = (svg: string): Array<[number, number]> =>
  (/<polyline class="line" points="([^"]*)"/.exec(svg)?.[1] ?? '')
    .split(' ')
    .filter(Boolean)
    .map((p) => p.split(',').map(Number) as [number, number]);

describe('money', () => {
  it('writes copper in gold, silver and copper: full amounts, short axis labels and coloured coins', () => {
    expect(formatCopper(123456)).toBe('12g 34s 56c');
    expect(formatCopper(12_345_6789)).toBe('12,345g 67s 89c');
    expect(formatCopper(5)).toBe('5c');
    expect(copperLabel(125_000)).toBe('12g 50s');
    expect(copperLabel(10_000)).toBe('1g');
    expect(copperLabel(75)).toBe('75c');
    expect(copperLabel(0)).toBe('0c');
    expect(copperHtml(1_234_500)).toBe('<span class="g">123g</span> <span class="s">45s</span> <span class="c">0c</span>');
  });
});

describe('price axis', () => {
  it('steps by 1, 2 or 5 times a power of ten copper (so by whole silver and gold too)', () => {
    expect(niceStep(10_000, 4)).toBe(5_000);
    expect(niceStep(7, 4)).toBe(2);
    expect(niceStep(0, 4)).toBe(1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 8 }), (span, count) => {
        const step = niceStep(span, count);
        const mantissa = step / 10 ** Math.floor(Math.log10(step));
        expect([1, 2, 5]).toContain(Math.round(mantissa * 1e9) / 1e9);
        expect(step).toBeGreaterThanOrEqual(span / count);
      }),
    );
  });

  it('covers every price with evenly spaced ticks, never below zero, a flat series in a band around it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 40 }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const ticks = priceTicks(low, high);
        expect(ticks[0]).toBeGreaterThanOrEqual(0);
        expect(ticks[0]).toBeLessThanOrEqual(low);
        expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(high);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(12);
        const step = ticks[1] - ticks[0];
        expect(ticks).toEqual(ticks.map((_, i) => ticks[0] + i * step));
        if (low === high && low > 0) expect(ticks[ticks.length - 1]).toBeGreaterThan(high);
      }),
    );
  });
});

describe('price chart', () => {
  const spec = {
    id: 'c',
    label: 'Closes',
    description: 'What it shows',
    from: 0,
    to: 10 * HOUR_MS,
    xTicks: [{ t: 0, label: 'start' }],
    empty: 'No observed price is available here.',
  };

  it('says in text that no price is available instead of drawing an empty chart', () => {
    expect(priceChartSvg({ ...spec, points: [] })).toBe('<p class="chart-empty">No observed price is available here.</p>');
    expect(priceChartSvg({ ...spec, points: [{ t: 11 * HOUR_MS, price: 5 }] })).toContain('chart-empty');
  });

  it('is an image with a name, a title and a description, and a line through the points in time order', () => {
    const svg = priceChartSvg({ ...spec, points: [2, 0, 5].map((h) => ({ t: h * HOUR_MS, price: 100 + h })) });
    expect(svg).toMatch(
      /^<svg class="chart" id="c" xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+" width="\d+" height="\d+" role="img" aria-label="Closes" aria-describedby="c-desc">/,
    );
    expect(svg).toContain('<title id="c-title">Closes</title>');
    expect(svg).toContain('<desc id="c-desc">What it shows</desc>');
    const pts = polylinePoints(svg);
    expect(pts).toHaveLength(3);
    expect(pts[0][0]).toBeLessThan(pts[1][0]);
    expect(pts[1][0]).toBeLessThan(pts[2][0]);
    // Higher prices are drawn higher (smaller y).
    expect(pts[2][1]).toBeLessThan(pts[0][1]);
    expect(svg).toContain('<text x="');
    expect(svg).toMatch(/>1s<\/text>/);
  });

  it('escapes every text it is given', () => {
    const svg = priceChartSvg({ ...spec, label: EVIL, description: EVIL, xTicks: [{ t: 0, label: EVIL }], points: [{ t: 0, price: 1 }] });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<img');
    expect(svg).toContain('&lt;/title&gt;&lt;script&gt;');
  });
});

describe('item page with charts', () => {
  it('draws the daily closes of the window and the hourly closes of the last finished hours', () => {
    const html = itemPageHtml(page(), urls, HOURS);
    const daily = svgOf(html, 'chart-daily');
    const hourly = svgOf(html, 'chart-hourly');
    expect(polylinePoints(daily)).toHaveLength(3);
    expect(polylinePoints(hourly)).toHaveLength(3);
    expect(daily).toContain('aria-label="Daily closing price of Linen Cloth, 8 days"');
    expect(hourly).toContain(`aria-label="Hourly closing price of Linen Cloth, last ${CHART_HOURS} hours"`);
    expect(hourly).toContain('latest 123g 45s 67c');
    expect(chartHours(NOW)).toEqual({ first: Math.floor(NOW / HOUR_MS) - CHART_HOURS, last: Math.floor(NOW / HOUR_MS) - 1 });
    // The daily axis names the window's days; its price axis speaks gold and silver.
    expect(daily).toMatch(/>Nov 2<\/text>/);
    expect(daily).toMatch(/>Nov 9<\/text>/);
    expect(daily).toMatch(/>1\d\dg( \d+s)?<\/text>/);
  });

  it('says that no observed price is available in text where a chart would be', () => {
    const html = itemPageHtml(page({ row: null, days: [] }), urls, []);
    expect(html).not.toContain('<svg');
    expect(html).toContain('<p class="chart-empty">No observed price is available in the last 8 days.</p>');
    expect(html).toContain(`<p class="chart-empty">No observed price is available in the last ${CHART_HOURS} hours.</p>`);
    expect(html).toContain('No observed price is available for Linen Cloth on PvP Horde (US).');
  });

  it('shows the name, the icon and the price up top, styled, and keeps ahf-item to its seven fields', () => {
    const html = itemPageHtml(page(), urls, HOURS);
    expect(html).toContain(`<style>${PAGE_CSS}</style>`);
    expect(html).toContain('<div class="item-head q2">');
    expect(html).toContain(`<img src="${BASE}icons/inv_fabric_linen_01.webp" width="56" height="56" alt="">`);
    expect(html).toContain('<h1>Linen Cloth</h1>');
    expect(html).toContain('<p class="price"><span class="g">123g</span> <span class="s">45s</span> <span class="c">67c</span>');
    const json = JSON.parse(/<script type="application\/json" id="ahf-item">(.*?)<\/script>/s.exec(html)?.[1] ?? 'null');
    expect(Object.keys(json).sort()).toEqual(['days', 'item', 'key', 'market', 'now', 'row']);
    expect(json).toEqual(page());
  });

  it('escapes a markup-shaped name in heading, charts, tables and meta', () => {
    const evil = page({ item: { n: EVIL, q: 1 } });
    const html = itemPageHtml(evil, urls, HOURS);
    expect(html).not.toMatch(/<img src=x|<script>alert/);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html.match(/<\/title>/g)).toHaveLength(3); // the page's and the two charts'
    expect(html).toContain('<h1>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;</h1>');
  });

  it('puts the daily and the hourly closes in Markdown tables, newest first', () => {
    const md = itemPageMarkdown(page(), urls, HOURS);
    const hourly = md.split(`## Hourly closes (last ${CHART_HOURS} hours)`)[1];
    expect(hourly).toContain('| Hour (UTC) | Close | Quantity |');
    const rows = hourly.split('\n').filter((l) => /^\| 2026/.test(l));
    expect(rows).toEqual(['| 2026-11-09 12:00 | 123g 45s 67c | 340 |', '| 2026-11-09 10:00 | 122g 0s 0c | 320 |', '| 2026-11-09 08:00 | 121g 0s 0c | 300 |']);
    expect(md).toContain('| 2026-11-07 | 110g 0s 0c | 115g 0s 0c | 200 |');
    expect(itemPageMarkdown(page(), urls, [])).toContain(`No hourly prices in the last ${CHART_HOURS} hours.`);
  });
});

describe('home page', () => {
  const markets = [
    {
      market: M,
      at: hourStart,
      top: [
        { key: 4306, name: EVIL, price: 7_500, quantity: 900 },
        { key: 2589, name: 'Linen Cloth', price: 1_234_567, quantity: 340 },
      ],
    },
  ];

  it('lists the most listed rows with a price, most units first', () => {
    expect(
      mostListed(
        [
          [1, 10, 5, 0],
          [2, null, 0, 0],
          [3, 20, 9, 0],
          [4, 30, 5, 0],
          [5, 40, 0, 0],
        ],
        3,
      ),
    ).toEqual([
      [3, 20, 9],
      [1, 10, 5],
      [4, 30, 5],
    ]);
  });

  it("links each market's most listed items to their item pages in that market, escaped", () => {
    const { html, markdown } = homePage(BASE, markets);
    expect(html).toContain(
      `<a href="${BASE}item/4306?m=${M}">&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;</a>`,
    );
    expect(html).toContain(`<a href="${BASE}item/2589?m=${M}">Linen Cloth</a><span><span class="g">123g</span>`);
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('<h3 id="m-forever-normal-alliance-us">Normal Alliance (US)</h3>\n<p class="muted">No prices yet.</p>\n</section>');
    expect(markdown).toContain(`2. [Linen Cloth](${BASE}item/2589?m=${M}): 123g 45s 67c, 340 listed`);
    expect(markdown).toContain(`1. [\\</title\\>\\<script\\>alert(1)\\</script\\>\\<img src=x onerror=alert(2)\\>"'&](${BASE}item/4306?m=${M})`);
    expect(markdown).toContain(`Hourly snapshot (JSON): ${BASE}api/v1/ah/${M}/snapshot`);
    expect(markdown).not.toContain(`${BASE}api/v1/ah/forever.normal.alliance.us/snapshot`);
  });
});

describe('stylesheet', () => {
  it('is inlined in every HTML page and cannot end its element early', () => {
    expect(htmlDocument({ title: 't', description: 'd', url: BASE, body: '' })).toContain(`<style>${PAGE_CSS}</style>\n</head>`);
    expect(PAGE_CSS).not.toMatch(/<\/?style|<!--/i);
    expect(PAGE_CSS).toContain('prefers-color-scheme:dark');
  });
});
