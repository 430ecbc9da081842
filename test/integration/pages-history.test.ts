import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondsToNextHour } from '../../shared/clock';
import { formatCopper } from '../../shared/pages/item-page';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Issue 15 point 5 over real HTTP: the item page's price history is the anonymous hourly data (hour candles
 * of finished hours, as the anonymous candles answer has them), in HTML and Markdown; the home page links
 * each market's most listed items to their item pages; catalogue names cannot inject markup anywhere.
 */

const M = 'forever.normal.alliance.us';
/** The page without the site's own app script (issue 24: pages load it), so what is left holds no script of a name. */
const withoutApp = (html: string): string => html.replace(/<script type="module" src="\/assets\/[^"]+\.js" defer><\/script>/, '');
const EVIL = '<svg onload=alert(1)>Linen"</title><script>alert(2)</script>';
const FILE = {
  v: 1,
  build: '1.15.7',
  source: 'history test',
  suffixes: {},
  statNames: {},
  bonusLists: {},
  bonusTrees: {},
  items: {
    '2589': { n: EVIL, q: 1, il: 5, c: 7, sc: 5 },
    '2592': { n: 'Wool Cloth', q: 1, il: 15, c: 7, sc: 5 },
  },
};
const D0 = Math.floor(DEFAULT_START / DAY) * DAY;
/** Day 3, 14:20: the hourly chart covers 14:00 of day 1 .. 13:00 of day 3. */
const VIEW_AT = D0 + 3 * DAY + 14 * HOUR + 20 * MINUTE;
/** One reading every 5 hours from day 0 on, the last in the view's own hour (read after its cut). */
const READINGS: number[] = [];
for (let t = D0 + 10 * MINUTE; t <= VIEW_AT - 5 * MINUTE; t += 5 * HOUR) READINGS.push(t);
READINGS.push(VIEW_AT - 5 * MINUTE);
const priceAt = (i: number): number => 50_000 + 1_111 * i;

describe('item page price history and home page links', () => {
  let local: Local;
  const get = async (path: string, accept?: string) => {
    const res = await fetch(`${local.base}${path}`, { headers: accept ? { accept } : {} });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const hourlyRows = (md: string): string[][] => {
    const section = md.split('## Hourly closes')[1].split('\n## ')[0];
    return section
      .split('\n')
      .filter((l) => /^\| \d{4}-/.test(l))
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
  };

  beforeAll(async () => {
    local = await startLocal();
    expect(
      (await fetch(`${local.base}/_local/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(FILE) })).status,
    ).toBe(200);
    const uploader = await uploaderKey(local);
    for (const [i, at] of READINGS.entries())
      await uploadAt(local, uploader, at, [
        [2589, priceAt(i), 10 + i],
        [2592, 900, 5],
      ]);
    await local.setClock(VIEW_AT);
  }, 420_000);
  afterAll(() => local.close());

  it('tables the hourly closes of the last 48 finished hours exactly as the anonymous h1 candles answer has them', async () => {
    const api = await local.api('GET', `/api/v1/ah/${M}/2589/candles?res=h1`);
    expect(api.status).toBe(200);
    const first = Math.floor(VIEW_AT / HOUR) * HOUR - 48 * HOUR;
    const expected = (api.body.candles as number[][])
      .filter(([t]) => t >= first)
      .reverse()
      .map(([t, , , , close, quantity]) => [`${new Date(t).toISOString().slice(0, 13).replace('T', ' ')}:00`, formatCopper(close), String(quantity)]);
    expect(expected.length).toBeGreaterThan(8);
    const md = await get('/item/2589.md');
    expect(hourlyRows(md.text)).toEqual(expected);
    // The reading after the hour's cut shows nowhere: not in the hourly closes, not in the page's row.
    const after = formatCopper(priceAt(READINGS.length - 1));
    expect(md.text).not.toContain(after);
    const html = await get('/item/2589');
    expect(html.text).not.toContain(after);
    expect(html.text).toContain('id="chart-hourly"');
    expect(html.text).toContain(`<th scope="row">${expected[0][0]}</th><td>${expected[0][1]}</td>`);
  });

  it('draws the daily closes of the anonymous answer, the current day so far included', async () => {
    const api = await local.api('GET', `/api/v1/ah/${M}/2589`);
    const html = (await get('/item/2589')).text;
    const daily = /<svg class="chart" id="chart-daily"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    const points = /<polyline class="line" points="([^"]*)"/.exec(daily)?.[1].split(' ') ?? [];
    expect(points).toHaveLength(api.body.days.length);
    expect(api.body.days.length).toBe(4);
  });

  it('escapes a markup-shaped catalogue name in the item page, its charts and its Markdown', async () => {
    const html = (await get('/item/2589')).text;
    expect(html).not.toMatch(/<svg onload|<script>alert/);
    expect(withoutApp(html).match(/<script/g)).toHaveLength(1);
    expect(html).toContain('&lt;svg onload=alert(1)&gt;Linen&quot;&lt;/title&gt;');
    expect(html).toMatch(/aria-label="Daily closing price of &lt;svg onload=alert\(1\)&gt;Linen&quot;/);
    const md = (await get('/item/2589', 'text/markdown')).text;
    expect(md.split('\n')[0]).toBe('# \\<svg onload=alert(1)\\>Linen"\\</title\\>\\<script\\>alert(2)\\</script\\>');
  });

  it('lists the most listed items of the newest hourly snapshot on the home page, linking to their item pages', async () => {
    // The last upload's settle ran this hour's snapshot job.
    const now = await local.now();
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(home.headers.get('cache-control')).toBe(`public, max-age=${secondsToNextHour(now)}`);
    expect(home.headers.get('vary')).toBe('Accept');
    const links = [...home.text.matchAll(/<li><div class="row"><a href="([^"]+)">([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([
      [`${local.base}/item/2589`, '&lt;svg onload=alert(1)&gt;Linen&quot;&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;'],
      [`${local.base}/item/2592`, 'Wool Cloth'],
    ]);
    expect(withoutApp(home.text)).not.toMatch(/<svg onload|<script/);
    const md = await get('/', 'text/markdown');
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.text).toContain(`1. [\\<svg onload=alert(1)\\>Linen"\\</title\\>\\<script\\>alert(2)\\</script\\>](${local.base}/item/2589): `);
    expect(md.text).toContain(`2. [Wool Cloth](${local.base}/item/2592): 9s 0c, 5 listed`);
    const head = await fetch(`${local.base}/`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('caches the home page for 60 s while the newest snapshot is of an earlier hour, then until the next hour', async () => {
    await local.advance(HOUR);
    expect((await get('/')).headers.get('cache-control')).toBe('public, max-age=60');
    await local.tick();
    expect((await get('/')).headers.get('cache-control')).toBe(`public, max-age=${secondsToNextHour(await local.now())}`);
  });
});
