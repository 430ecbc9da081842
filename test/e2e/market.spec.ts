/**
 * Markets in the browser (issue 24 point 4), end to end in Chromium against the local runtime: the hourly
 * view with its time and a sign-in prompt for visitors, item search, the chart drawn (and its library loaded
 * only there), one item across the six markets, a live price and live table for a premium caller after an
 * upload, axe on every market page, and screenshots (desktop, phone, dark) kept under test-results/market/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { advance, publishItems, signIn, tick, uploader, user } from './market-support';

const MARKET = 'forever.normal.alliance.us';
const OTHER = 'forever.pvp.horde.us';
const COPPER = 2770;
const ITEM = `/#/market/item?key=${COPPER}&m=${MARKET}`;
const ROOT = join(import.meta.dirname, '..', '..');
const SHOTS = join(ROOT, 'test-results', 'market');
const SITE = join(ROOT, 'build', 'site');

let up: Awaited<ReturnType<typeof uploader>>;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  await publishItems('e2e-market-1', { [COPPER]: { n: 'Copper Ore', q: 1 }, 2775: { n: 'Silver Ore', q: 1 }, 2589: { n: 'Linen Cloth', q: 1 } });
  up = await uploader();
  // 10:29:59 UTC: Copper Ore at 1g 23s 45c here and 90s in PvP Horde.
  await up.upload(MARKET, { [COPPER]: [12_345, 5], 2775: [500, 3] });
  await up.upload(OTHER, { [COPPER]: [9_000, 2] });
  // 11:30: the 11:00 hourly view holds those uploads.
  await advance(3_600_000);
  await tick();
});

/** The serious and critical accessibility violations axe finds on the page. */
async function axeProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Desktop, phone (390 px) and dark screenshots of the page as it is now. */
async function screenshots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow, 'nothing wider than a phone').toBeLessThanOrEqual(0);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, `${name}-phone-dark.png`), fullPage: true });
  expect(await axeProblems(page), 'axe on a phone, dark').toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(SHOTS, `${name}-desktop-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** How many pixels of the chart's canvases differ from their first pixel (the background); run in the page. */
const CHART_INK = `(() => {
  let ink = 0;
  for (const canvas of document.querySelectorAll('.price-chart canvas')) {
    const ctx = canvas.getContext('2d');
    if (!ctx || canvas.width === 0 || canvas.height === 0) continue;
    const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 4; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2] || d[i + 3] !== d[3]) ink++;
  }
  return ink;
})()`;
const chartInk = (page: Page) => page.evaluate<number>(CHART_INK);

/** Whether the chart's background (an opaque pixel near a canvas's corner) is dark; run in the page. */
const CHART_DARK = `[...document.querySelectorAll('.price-chart canvas')].some((canvas) => {
  const ctx = canvas.getContext('2d');
  if (!ctx || canvas.width < 8 || canvas.height < 8) return false;
  const [r, g, b, a] = ctx.getImageData(5, 5, 1, 1).data;
  return a === 255 && r + g + b < 200;
})`;

test('an anonymous visitor sees the hourly view with its time and a sign-in prompt', async ({ page }) => {
  await page.goto(ITEM);
  await expect(page.getByRole('heading', { level: 2, name: 'Copper Ore' })).toBeVisible();
  await expect(page.getByTestId('item-price')).toHaveText('1g 23s 45c per unit');
  await expect(page.getByText('Hourly view as of 11:00 UTC, 2 Nov 2026.')).toBeVisible();
  await expect(page.getByText('Sign in to see live prices.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page.locator('.badge.live')).toHaveCount(0);

  await page.goto('/#/market');
  await expect(page.getByRole('heading', { level: 1, name: 'Markets' })).toBeVisible();
  await expect(page.getByText('Hourly view as of 11:00 UTC, 2 Nov 2026.')).toBeVisible();
  const markets = page.getByRole('list', { name: 'The six markets' }).getByRole('listitem');
  await expect(markets).toHaveCount(6);
  await expect(page.getByRole('listitem', { name: 'Normal Alliance (US)' })).toContainText('Uploads (24 h)');
  await expect(page.getByRole('listitem', { name: 'Normal Alliance (US)' })).not.toContainText('No data yet');
  await expect(page.getByRole('listitem', { name: 'RP Horde (US)' })).toContainText('No data yet: it appears after the first upload.');
  await expect(page.getByRole('link', { name: 'Live table' })).toHaveCount(0);
  expect(await axeProblems(page)).toEqual([]);
  await screenshots(page, 'markets-anonymous');
});

test('search finds an item over the search index and opens it', async ({ page }) => {
  await page.goto('/#/market');
  await page.getByLabel('Item name or key').fill('copper');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'found' })).toHaveText('1 item found for “copper”.');
  await page.getByLabel('Market', { exact: true }).selectOption(OTHER);
  await page.getByRole('link', { name: 'Copper Ore' }).click();
  await expect(page).toHaveURL(new RegExp(`#/market/item\\?key=${COPPER}&m=${OTHER.replace(/\./g, '\\.')}$`));
  await expect(page.getByRole('heading', { level: 2, name: 'Copper Ore' })).toBeVisible();
  await expect(page.getByTestId('item-price')).toHaveText('90s 0c per unit');

  await page.goto('/#/market?q=mithril');
  await expect(page.getByText('No item is named like “mithril”: check the spelling or try fewer words.')).toBeVisible();
});

test('the chart draws candles and volume, its library loaded only where a chart is shown', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  await page.goto('/#/market');
  await expect(page.getByRole('heading', { level: 2, name: 'The six markets' })).toBeVisible();
  expect(scripts.filter((s) => s.includes('chart'))).toEqual([]);
  const initial = [...scripts];

  await page.goto(ITEM);
  const box = page.locator('.price-chart');
  await expect(box).toHaveAttribute('data-candles', /^[1-9]/);
  expect(scripts.some((s) => /\/assets\/chart-[^/]+\.js$/.test(s))).toBe(true);
  expect(initial.some((s) => s.includes('chart'))).toBe(false);
  const resolutions = page.getByRole('group', { name: 'Resolution' }).getByRole('button');
  await expect(resolutions).toHaveText(['Daily', 'Hourly']);
  await expect(page.getByRole('button', { name: 'Hourly' })).toHaveAttribute('aria-pressed', 'true');
  await expect(box).toHaveAttribute('aria-label', /Copper Ore, hourly price chart: 1 candle from 2026-11-02 10:00/);
  await expect.poll(() => chartInk(page)).toBeGreaterThan(500);

  await page.getByRole('button', { name: 'Daily' }).click();
  await expect(page.getByRole('button', { name: 'Daily' })).toHaveAttribute('aria-pressed', 'true');
  await expect(box).toHaveAttribute('aria-label', /Copper Ore, daily price chart/);
  await expect.poll(() => chartInk(page)).toBeGreaterThan(500);
  // The chart follows the colour scheme while the page is open.
  expect(await page.evaluate<boolean>(CHART_DARK)).toBe(false);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(() => page.evaluate<boolean>(CHART_DARK)).toBe(true);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => page.evaluate<boolean>(CHART_DARK)).toBe(false);
  expect(await axeProblems(page)).toEqual([]);
  await screenshots(page, 'item-anonymous');
});

test('one item compared across the six markets, the cheapest marked, each opening its own view', async ({ page }) => {
  await page.goto(ITEM);
  const table = page.getByRole('table', { name: 'Price in each market' });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(6);
  await expect(rows.nth(0)).toContainText('Normal Alliance (US)');
  await expect(rows.nth(0)).toContainText('1g 23s 45c');
  await expect(table.locator(`tr[data-market="${OTHER}"]`)).toContainText('90s 0c');
  await expect(table.locator(`tr[data-market="${OTHER}"]`)).toContainText('Lowest');
  await expect(table.locator('tr.cheapest')).toHaveCount(1);
  await expect(table.locator('tr[data-market="forever.rp.horde.us"]')).toContainText('—');
  await table.getByRole('link', { name: 'PvP Horde (US)' }).click();
  await expect(page.getByText(`PvP Horde (US) · Item key ${COPPER}`)).toBeVisible();
  await expect(page.getByTestId('item-price')).toHaveText('90s 0c per unit');
});

test('a premium caller sees the price change live after an upload, and the live table', async ({ browser }) => {
  const premium = await user({ plan: 'premium' });
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await signIn(context, premium.id);
  const page = await context.newPage();
  await page.goto(ITEM);
  await expect(page.locator('.freshness .badge.live')).toHaveText('Live');
  await expect(page.getByText('Live: the price follows every upload.')).toBeVisible();
  await expect(page.getByTestId('item-price')).toHaveText('1g 23s 45c per unit');
  await expect(page.getByText('Sign in to see live prices.')).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Resolution' }).getByRole('button')).toHaveText(['Daily', 'Hourly', 'Minute']);

  // Past the uploader's 5 minutes: a new book with a new price, and no reload.
  await advance(6 * 60_000);
  await up.upload(MARKET, { [COPPER]: [11_111, 4], 2775: [500, 3] });
  await expect(page.getByTestId('item-price')).toHaveText('1g 11s 11c per unit');
  expect(await axeProblems(page)).toEqual([]);

  await page.goto(`/#/market/live?m=${MARKET}`);
  const live = page.getByRole('table', { name: 'Live prices of Normal Alliance (US)' });
  await expect(live.locator(`tr[data-key="${COPPER}"]`)).toContainText('1g 11s 11c');
  await expect(live.getByRole('link', { name: 'Copper Ore' })).toBeVisible();
  await advance(6 * 60_000);
  await up.upload(MARKET, { [COPPER]: [10_000, 1], 2775: [500, 3] });
  await expect(live.locator(`tr[data-key="${COPPER}"]`)).toContainText('1g 0s 0c');
  expect(await axeProblems(page)).toEqual([]);
  await screenshots(page, 'live-premium');
  await context.close();
});

test('a bad item link says what to do instead of failing', async ({ page }) => {
  await page.goto('/#/market/item?key=abc&m=nowhere');
  await expect(page.getByText('This link names no valid item or market:')).toBeVisible();
  await expect(page.getByRole('link', { name: 'search for the item' })).toHaveAttribute('href', '#/market');
});

test("the app's initial JavaScript stays within 100 KB gzip and holds none of the chart library", async () => {
  type Chunk = { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] };
  const manifest = JSON.parse(readFileSync(join(SITE, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
  const initial = new Set<string>();
  const walk = (key: string) => {
    if (initial.has(key)) return;
    initial.add(key);
    for (const i of manifest[key].imports ?? []) walk(i);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) walk(key);
  const texts = [...initial].map((k) => readFileSync(join(SITE, manifest[k].file)));
  const gzipBytes = texts.reduce((sum, t) => sum + gzipSync(t).length, 0);
  expect(gzipBytes).toBeLessThanOrEqual(100 * 1024);
  // A message only lightweight-charts carries: in the chart's own chunk, loaded by import(), never in the initial ones.
  const mark = 'Negative height is not allowed for Size';
  expect(texts.some((t) => t.toString('utf8').includes(mark))).toBe(false);
  const chart = Object.values(manifest).find((c) => readFileSync(join(SITE, c.file), 'utf8').includes(mark));
  expect(chart, 'the chart library is in a chunk of its own').toBeDefined();
  expect([...initial].some((k) => manifest[k].dynamicImports?.some((d) => manifest[d].file === chart?.file))).toBe(true);
});

test('app routes are no server paths: they stay out of the sitemap and their paths answer 404', async ({ request }) => {
  const sitemap = await (await request.get('/sitemap.xml')).text();
  expect(sitemap).not.toContain('#/');
  expect(sitemap).not.toContain('/market');
  for (const path of ['/market', '/market/item', '/market/live']) expect((await request.get(path)).status(), path).toBe(404);
});
