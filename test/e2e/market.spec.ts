/**
 * Markets in the browser (issue 24 point 4), end to end in Chromium against the local runtime of the shared
 * set-up (playwright.config.ts: the demo, which replays a week of two markets and feeds them): the hourly view
 * with its time and a sign-in prompt for visitors, item search, the chart drawn (its library loaded only
 * there), one item across the six markets, a live price and live table for a premium caller after uploads
 * through the typed client, axe on every market page in both schemes, screenshots (desktop, phone, dark).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { formatCopper } from '../../shared/pages/money';
import { base, hourlyText, serviceNow, uploadBook } from './market-support';
import { expectAccessible, shoot, signIn } from './support';

/** The demo's first market (fed every 20 s), its second, and one no test but the live one uploads to. */
const FED = 'forever.normal.alliance.us';
const FED2 = 'forever.normal.horde.us';
const QUIET = 'forever.rp.horde.us';
const DEMO_USER = 'demo@localhost';
const SITE = join(import.meta.dirname, '..', '..', 'build', 'site');

type AnonRow = [number, number | null, number, number] | null;
let ITEM: { key: number; name: string };
const itemView = (market: string) => `/#/market/item?key=${ITEM.key}&m=${market}`;

/** The anonymous (hourly) row of the item in a market, as the API answers it. */
const anonRow = async (market: string): Promise<AnonRow> => ((await (await fetch(`${base()}/api/v1/ah/${market}/${ITEM.key}`)).json()) as { row: AnonRow }).row;

test.beforeAll(async () => {
  // The home page's most listed item of the first market (its links have no `?m=`), named as the search index names it.
  const home = await (await fetch(`${base()}/`)).text();
  const key = Number(/href="[^"]*\/item\/(\d+)"/.exec(home)?.[1]);
  const index = (await (await fetch(`${base()}/api/v1/items/search-index`)).json()) as { items: [number, string][] };
  const name = index.items.find((e) => e[0] === key)?.[1];
  expect(name, 'the demo item is in the search index').toBeTruthy();
  ITEM = { key, name: name as string };
});

/** Nothing on the page is wider than a phone (390 px): no sideways scrolling of the whole page. */
async function fitsPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 800 });
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
  const row = await anonRow(FED);
  expect(row?.[1], 'the demo item has an hourly price').toBeGreaterThan(0);
  await page.goto(itemView(FED));
  await expect(page.getByRole('heading', { level: 2, name: ITEM.name })).toBeVisible();
  await expect(page.getByTestId('item-price')).toHaveText(`${formatCopper(row?.[1] as number)} per unit`);
  await expect(page.getByText(hourlyText(await serviceNow()))).toBeVisible();
  await expect(page.getByText('Sign in to see live prices.')).toBeVisible();
  await expect(page.getByRole('main').getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page.locator('.badge.live')).toHaveCount(0);

  await page.goto('/#/market');
  await expect(page.getByRole('heading', { level: 1, name: 'Markets' })).toBeVisible();
  await expect(page.getByText(hourlyText(await serviceNow()))).toBeVisible();
  await expect(page.getByRole('list', { name: 'The six markets' }).getByRole('listitem')).toHaveCount(6);
  await expect(page.getByRole('listitem', { name: 'Normal Alliance (US)' })).toContainText('Uploads (24 h)');
  await expect(page.getByRole('listitem', { name: 'PvP Alliance (US)' })).toContainText('No data yet: it appears after the first upload.');
  await expect(page.getByRole('link', { name: 'Live table' })).toHaveCount(0);
  await expectAccessible(page);
  await fitsPhone(page);
  await shoot(page, 'market-overview-signed-out');
});

test('search finds an item over the search index and opens it in the chosen market', async ({ page }) => {
  await page.goto('/#/market');
  await page.getByLabel('Item name or key').fill(ITEM.name.toLowerCase());
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'found for' })).toHaveText(/^\d+ items? found for “/);
  await page.getByLabel('Market', { exact: true }).selectOption(FED2);
  await page.getByRole('list', { name: 'Items found' }).getByRole('link', { name: ITEM.name, exact: true }).first().click();
  await expect(page).toHaveURL(`${base()}/#/market/item?key=${ITEM.key}&m=${FED2}`);
  await expect(page.getByRole('heading', { level: 2, name: ITEM.name })).toBeVisible();
  await expect(page.getByText(`Normal Horde (US) · Item key ${ITEM.key}`)).toBeVisible();

  await page.goto(`/#/market?q=${encodeURIComponent(String(ITEM.key))}`);
  await expect(page.getByRole('list', { name: 'Items found' }).getByRole('link').first()).toHaveText(ITEM.name);
  await page.goto('/#/market?q=zzqx');
  await expect(page.getByText('No item is named like “zzqx”: check the spelling or try fewer words.')).toBeVisible();
});

test('the chart draws candles and volume, its library loaded only where a chart is shown', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  await page.goto('/#/market');
  await expect(page.getByRole('heading', { level: 2, name: 'The six markets' })).toBeVisible();
  expect(scripts.filter((s) => s.includes('chart'))).toEqual([]);

  await page.goto(itemView(FED));
  const box = page.locator('.price-chart');
  await expect(box).toHaveAttribute('data-candles', /^[1-9]/);
  expect(scripts.some((s) => /\/assets\/chart-[^/]+\.js$/.test(s))).toBe(true);
  await expect(page.getByRole('group', { name: 'Resolution' }).getByRole('button')).toHaveText(['Daily', 'Hourly']);
  await expect(page.getByRole('button', { name: 'Hourly' })).toHaveAttribute('aria-pressed', 'true');
  await expect(box).toHaveAttribute('aria-label', new RegExp(`^${ITEM.name}, hourly price chart: \\d+ candles? from `));
  await expect.poll(() => chartInk(page)).toBeGreaterThan(500);

  await page.getByRole('button', { name: 'Daily' }).click();
  await expect(page.getByRole('button', { name: 'Daily' })).toHaveAttribute('aria-pressed', 'true');
  await expect(box).toHaveAttribute('aria-label', new RegExp(`^${ITEM.name}, daily price chart`));
  await expect.poll(() => chartInk(page)).toBeGreaterThan(500);
  // The chart follows the colour scheme while the page is open.
  expect(await page.evaluate<boolean>(CHART_DARK)).toBe(false);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(() => page.evaluate<boolean>(CHART_DARK)).toBe(true);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => page.evaluate<boolean>(CHART_DARK)).toBe(false);
  await expectAccessible(page);
  await fitsPhone(page);
  await shoot(page, 'market-item-signed-out');
});

test('one item compared across the six markets, the cheapest marked, each opening its own view', async ({ page }) => {
  const [a, b] = [await anonRow(FED), await anonRow(FED2)];
  await page.goto(itemView(FED));
  const table = page.getByRole('table', { name: 'Price in each market' });
  await expect(table.locator('tbody tr')).toHaveCount(6);
  await expect(table.locator(`tr[data-market="${FED}"]`)).toContainText(formatCopper(a?.[1] as number));
  await expect(table.locator('tr[data-market="forever.pvp.alliance.us"]')).toContainText('—');
  if (a?.[1] && b?.[1] && b[2] > 0 && a[1] !== b[1]) {
    const [low, high] = a[1] < b[1] ? [FED, FED2] : [FED2, FED];
    await expect(table.locator(`tr[data-market="${low}"]`)).toContainText('Lowest');
    await expect(table.locator(`tr[data-market="${high}"]`)).not.toContainText('Lowest');
  }
  await expect(table.locator('tr.cheapest').first()).toContainText('Lowest');
  await table.getByRole('link', { name: 'Normal Horde (US)' }).click();
  await expect(page.getByText(`Normal Horde (US) · Item key ${ITEM.key}`)).toBeVisible();
  await expect(table.getByRole('row', { name: /Normal Horde \(US\)/ }).locator('[aria-current="page"]')).toHaveCount(1);
});

test('a premium caller sees the price change live after an upload, and the live table', async ({ page }) => {
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await signIn(page, DEMO_USER, itemView(QUIET));
  await expect(page.locator('.freshness .badge.live')).toHaveText('Live');
  await expect(page.getByText('Live: the price follows every upload.')).toBeVisible();
  await expect(page.getByTestId('item-price')).toHaveText('No observed price');
  await expect(page.getByText('Sign in to see live prices.')).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Resolution' }).getByRole('button')).toHaveText(['Daily', 'Hourly', 'Minute']);

  // A book uploaded through the typed client reaches the open page through the live socket: no reload.
  await uploadBook(QUIET, { [ITEM.key]: [1_234_567, 4] });
  await expect(page.getByTestId('item-price')).toHaveText('123g 45s 67c per unit');
  // The HttpOnly session cookie authenticates the socket: no credential in its URL (which logs and proxies keep).
  expect(sockets).toEqual([`${base().replace(/^http/, 'ws')}/api/v1/live?market=${QUIET}`]);
  await expectAccessible(page);

  await page.goto(`/#/market/live?m=${QUIET}`);
  const live = page.getByRole('table', { name: 'Live prices of RP Horde (US)' });
  await expect(live.locator(`tr[data-key="${ITEM.key}"]`)).toContainText('123g 45s 67c');
  await expect(live.getByRole('link', { name: ITEM.name })).toBeVisible();
  await uploadBook(QUIET, { [ITEM.key]: [7_654_321, 2] });
  await expect(live.locator(`tr[data-key="${ITEM.key}"]`)).toContainText('765g 43s 21c');
  await expectAccessible(page);
  await fitsPhone(page);
  await shoot(page, 'market-live-premium');
});

test('a bad item link says what to do instead of failing', async ({ page }) => {
  await page.goto('/#/market/item?key=abc&m=nowhere');
  await expect(page.getByText('This link names no valid item or market:')).toBeVisible();
  await expect(page.getByRole('link', { name: 'search for the item' })).toHaveAttribute('href', '#/market');
});

test("the chart library is in a chunk of its own, loaded by import(), never in the app's initial JavaScript", async () => {
  type Chunk = { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] };
  const manifest = JSON.parse(readFileSync(join(SITE, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
  const initial = new Set<string>();
  const walk = (key: string) => {
    if (initial.has(key)) return;
    initial.add(key);
    for (const i of manifest[key].imports ?? []) walk(i);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) walk(key);
  // A message only lightweight-charts carries.
  const mark = 'Negative height is not allowed for Size';
  const holds = (c: Chunk) => readFileSync(join(SITE, c.file), 'utf8').includes(mark);
  expect([...initial].some((k) => holds(manifest[k]))).toBe(false);
  const chart = Object.values(manifest).find(holds);
  expect(chart, 'the chart library is built').toBeDefined();
  expect([...initial].some((k) => manifest[k].dynamicImports?.some((d) => manifest[d].file === chart?.file))).toBe(true);
});

test('app routes are no server paths: they stay out of the sitemap and their paths answer 404', async ({ request }) => {
  const sitemap = await (await request.get('/sitemap.xml')).text();
  expect(sitemap).not.toContain('#/');
  expect(sitemap).not.toContain('/market');
  for (const path of ['/market', '/market/item', '/market/live']) expect((await request.get(path)).status(), path).toBe(404);
});
