import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeKeys } from '../support/books';
import { type Local, startLocal } from '../support/local';
import { HOUR, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Issue 23 point 6, over real HTTP: names and text from uploaders are inert everywhere. A catalogue upload with a
 * control character, line break or bidirectional control in a name is 400 `bad_request` and stores nothing; the
 * names it accepts (and generated names, which are not refused) render as plain text in the item pages' Markdown
 * and HTML and on the home page.
 */

/** Accepted by the upload rules, but Markdown or HTML if rendered raw. */
const HOSTILE: Record<number, string> = {
  900001: '<script>alert(1)</script>',
  900002: '# Injected heading',
  900003: '[click me](https://evil.example/)',
  900004: '1. numbered',
  900005: '> quoted',
  900006: '![img](https://evil.example/x.png)',
  900007: 'www.evil.example',
};
/** A catalogue name of the same shape, for comparison. */
const PLAIN_KEY = 900000;
/** A generated name: the item data is not refused, so its output alone keeps it inert. */
const GENERATED_KEY = 900100;
const GENERATED_NAME = 'Linen\n\n## Generated section\n\n[click me](https://evil.example/)\u202egnp.exe';

const FILE = {
  v: 1,
  build: '1.15.7',
  source: 'integration test',
  suffixes: {},
  statNames: {},
  bonusLists: {},
  bonusTrees: {},
  items: {
    '2589': { n: 'Linen Cloth', q: 1, il: 5, c: 7, sc: 5 },
    [GENERATED_KEY]: { n: GENERATED_NAME, q: 1, c: 15, sc: 0 },
  },
};

/** Where a Markdown page's lines open blocks: headings, list items, quotes, fences and tables. */
const structure = (md: string): string[] =>
  md
    .slice(0, md.indexOf('```json'))
    .split('\n')
    .map((l) => /^(#+ |- |\d+\. |> |```|\||\[)/.exec(l)?.[0] ?? '');

/** The page without the site's own app script (issue 24: pages load it), so what is left holds no script of a name. */
const withoutApp = (html: string): string => html.replace(/<script type="module" src="\/assets\/[^"]+\.js" defer><\/script>/, '');

describe('names are inert', () => {
  let local: Local;
  let key: string;
  let ipSeq = 0;
  const page = async (path: string, accept?: string) => {
    const headers: Record<string, string> = { 'x-forwarded-for': `198.51.100.${++ipSeq % 250}` };
    if (accept) headers.accept = accept;
    const res = await fetch(`${local.base}${path}`, { headers });
    return { status: res.status, text: await res.text() };
  };
  const seen = (body: unknown) => local.api('POST', '/api/v1/items/seen', { token: key, body });

  beforeAll(async () => {
    local = await startLocal();
    key = await uploaderKey(local);
    // One account's name is merged only for a key with a row in some market (issue 23 point 1).
    await observeKeys(local, [...Object.keys(HOSTILE).map(Number), PLAIN_KEY]);
  });
  afterAll(() => local.close());

  it('refuses names with control characters, line breaks or bidirectional controls with 400 bad_request, storing nothing', async () => {
    const refused = [
      'Linen\nCloth',
      'Linen\r\n# Cloth',
      'Linen\tCloth',
      'Linen\u0000',
      'Linen\u0085',
      'Linen\u202egnp.exe',
      'a\u2066b\u2069',
      'a\u200fb',
      'Linen\u2028# Cloth',
    ];
    for (const name of refused) {
      const res = await seen({
        items: [
          [900050, 'Fine Name', 1, 0, 0],
          [900051, name, 1, 0, 0],
        ],
      });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body, JSON.stringify(name)).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/control characters/) });
    }
    // Nothing of the refused uploads was kept: the fine entry beside them is still new.
    expect((await seen({ items: [[900050, 'Fine Name', 1, 0, 0]] })).body).toEqual({ added: 1, known: 0 });
  });

  it('renders accepted hostile names and generated ones as plain text in item page Markdown and HTML', async () => {
    const entries = Object.entries(HOSTILE).map(([k, n]) => [Number(k), n, 1, 0, 0]);
    expect((await seen({ items: [...entries, [PLAIN_KEY, 'Plain Name', 1, 0, 0]] })).body).toEqual({ added: entries.length + 1, known: 0 });
    // Published after the upload, the build is merged with the catalogue at once (one account names a key
    // the generated data leaves unnamed).
    expect((await fetch(`${local.base}/_local/items`, { method: 'POST', body: JSON.stringify(FILE) })).status).toBe(200);
    const plain = await page(`/item/${PLAIN_KEY}.md`);
    expect(plain.status).toBe(200);
    for (const [k, name] of [...Object.entries(HOSTILE), [String(GENERATED_KEY), GENERATED_NAME]]) {
      const md = await page(`/item/${k}.md`);
      expect(md.status, name).toBe(200);
      expect(structure(md.text), name).toEqual(structure(plain.text));
      const heading = md.text.split('\n')[0];
      // The name is there, every markup character escaped; no link, heading or HTML of its own.
      expect(heading.replace(/\\(.)/g, '$1'), name).toBe(`# ${name.replace(/[\n\u202e]/g, '\ufffd')}`);
      expect(heading.slice(2), name).not.toMatch(/(^|[^\\])[[\]<>#]|^\d+\.|https:\/\/|www\./);
      expect(md.text, name).not.toMatch(/^#+ (Injected|Generated)|^\[click me\]/m);
      const html = await page(`/item/${k}`);
      expect(html.status, name).toBe(200);
      expect(html.text, name).not.toMatch(/<script>alert|<a href="https:\/\/evil|<img src="https:\/\/evil|\u202e/);
      expect(withoutApp(html.text).match(/<script/g), name).toHaveLength(1);
    }
  });

  it('renders them as plain link text on the home page', async () => {
    const now = await local.now();
    const listings = Object.keys(HOSTILE).map((k, i): [number, number, number] => [Number(k), 10_000 + i, 100 - i]);
    await uploadAt(local, await uploaderKey(local), now + MINUTE, [...listings, [GENERATED_KEY, 5_000, 200]]);
    await local.setClock(Math.floor((now + MINUTE) / HOUR) * HOUR + HOUR + MINUTE);
    // The hour's snapshot job writes what the home page shows.
    await local.tick();
    const md = await page('/', 'text/markdown');
    expect(md.status).toBe(200);
    const items = md.text.split('\n').filter((l) => /^\d+\. \[/.test(l));
    expect(items.length).toBeGreaterThanOrEqual(Object.keys(HOSTILE).length + 1);
    for (const l of items) {
      // One link per line (the item page's): the name's own brackets are escaped.
      expect(l.match(/(^|[^\\])\]\(/g), l).toHaveLength(1);
      expect(l, l).not.toMatch(/https:\/\/evil|www\.evil|(^|[^\\])</);
    }
    expect(md.text).not.toMatch(/^#+ (Injected|Generated)|^\[click me\]/m);
    const html = await page('/');
    expect(html.text).not.toMatch(/<script>alert|<a href="https:\/\/evil|\u202e/);
    expect(html.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
