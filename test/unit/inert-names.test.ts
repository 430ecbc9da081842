import { describe, expect, it } from 'vitest';
import { CatalogueUploadBody } from '../../shared/api/catalogue-upload.schemas';
import { parseAs } from '../../shared/api/zod-parse';
import { hasUnsafeText, inertText } from '../../shared/domain/inert-text';
import { DomainError } from '../../shared/errors';
import { homePage } from '../../shared/pages/discovery';
import { type ItemPageData, itemPageHtml, itemPageMarkdown, itemPageUrls } from '../../shared/pages/item-page';

/**
 * Issue 23 point 6: names and text from uploaders are inert everywhere. Control characters, line breaks and
 * bidirectional controls are refused in catalogue names (400 `bad_request`); whatever a name holds (generated
 * item data is not refused), it renders as plain text on one line in every Markdown answer, and escaped in HTML.
 */

const BASE = 'https://example.test/';
const M = 'forever.pvp.horde.us';
const NOW = Date.UTC(2026, 10, 2, 13, 25);

/** Every way a name could open a block, a link or raw HTML in Markdown, or escape the HTML page. */
const HOSTILE = [
  '\n# Injected section\n\n[click me](https://evil.example/)\n',
  '# Heading name',
  '## Heading name',
  '> quoted',
  '- listed',
  '+ listed',
  '* listed',
  '1. numbered',
  '2) numbered',
  '```js',
  '~~~',
  '| a | b |',
  '===',
  '---',
  '    indented code',
  '[click me](https://evil.example/)',
  '![img](https://evil.example/x.png)',
  '<https://evil.example/>',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  'visit https://evil.example/now',
  'visit www.evil.example now',
  'mail admin@evil.example',
  '&lt;b&gt; &#x41;',
  '**bold** _em_ `code`',
  'Linen\u2028# Separator section',
  'Linen\u2029- paragraph item',
  'Linen\r\n## CRLF section',
  'Linen\u202egnp.exe',
  'Tab\there',
];

const page = (n: string): ItemPageData => ({
  market: M,
  key: 2589,
  item: { n, q: 1 },
  row: [2589, 1234567, 340, Date.UTC(2026, 10, 2, 12, 50)],
  days: [[20758, 1200000, 1234567, 340]],
  now: NOW,
});

/** The Markdown page's lines before its JSON fence (the fence holds the record as JSON, escaped apart). */
const bodyLines = (md: string): string[] => md.slice(0, md.indexOf('```json')).split('\n');

const codeOf = (f: () => unknown): string => {
  try {
    f();
    return 'ok';
  } catch (err) {
    return err instanceof DomainError ? err.code : 'thrown';
  }
};

describe('catalogue names on upload', () => {
  const upload = (name: string) => codeOf(() => parseAs(CatalogueUploadBody, { items: [[1, name, 0, 0, 0]] }, 'bad_request'));

  it('refuses C0 and C1 control characters, line breaks and tabs with bad_request', () => {
    for (const c of ['\u0000', '\u0007', '\n', '\r', '\t', '\u000b', '\u000c', '\u001b', '\u007f', '\u0085', '\u009b']) {
      expect(upload(`Linen${c}Cloth`), JSON.stringify(c)).toBe('bad_request');
    }
  });

  it('refuses bidirectional controls, line and paragraph separators, a byte order mark and lone surrogates', () => {
    const chars = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
    for (const c of [...chars, '\u2028', '\u2029', '\ufeff', '\ufff9', '\ud800', '\udc00']) {
      expect(upload(`Linen${c}Cloth`), JSON.stringify(c)).toBe('bad_request');
    }
  });

  it('says why in a short message', () => {
    try {
      parseAs(CatalogueUploadBody, { items: [[1, 'a\nb', 0, 0, 0]] }, 'bad_request');
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/control characters, line breaks or bidirectional/);
      expect((err as Error).message.length).toBeLessThan(200);
    }
  });

  it('keeps accepting ordinary names in any script, emoji and Markdown punctuation (escaped on output)', () => {
    for (const n of ['Linen Cloth', 'Šarlatová róba', 'لفافة الكتان', '亚麻布', 'Pet 🐱 carrier', '[Linen] # 1. <b>', 'کتان\u200cی'])
      expect(upload(n), n).toBe('ok');
    // The spec trims names: a trailing line break is gone before the rule applies.
    expect(upload('Linen Cloth\n')).toBe('ok');
  });

  it('tells refused characters apart and shows each as U+FFFD', () => {
    expect(hasUnsafeText('Linen Cloth 🐱')).toBe(false);
    expect(inertText('a\nb\u202ec\ud800')).toBe('a\ufffdb\ufffdc\ufffd');
  });
});

describe('hostile names on pages', () => {
  const urls = itemPageUrls(BASE, M, 2589);
  const plain = bodyLines(itemPageMarkdown(page('Plain Name'), urls));

  it('render as one line of plain text in the item page Markdown, whatever they hold', () => {
    for (const n of HOSTILE) {
      const lines = bodyLines(itemPageMarkdown(page(n), urls));
      // The name adds no line: no section, list, quote, fence or table of its own.
      expect(lines, JSON.stringify(n)).toHaveLength(plain.length);
      // Headings, list items and links are exactly those of a page with a plain name.
      const structure = (ls: string[]) => ls.map((l) => (/^(#+ |- |\d+\. |> |```|\|)/.exec(l)?.[0] ?? '').trim());
      expect(structure(lines), JSON.stringify(n)).toEqual(structure(plain));
      const heading = lines[0];
      expect(heading.startsWith('# '), JSON.stringify(n)).toBe(true);
      // No link, image, autolink, raw HTML or emphasis opens in the heading: each such character is escaped.
      expect(heading.slice(2), JSON.stringify(n)).not.toMatch(/(^|[^\\])[[\]<>`*_|#~@]/);
      expect(heading, JSON.stringify(n)).not.toMatch(/https?:\/\/|www\.|(^|[^\\])&#?[a-z0-9]+;/i);
      expect(heading.slice(2), JSON.stringify(n)).not.toMatch(/^([-+=>]|\d+[.)]|\s)/);
      expect(heading, JSON.stringify(n)).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u2028\u2029\t\r]/);
    }
  });

  it('keep their text readable: escapes undo to the name, with refused characters as U+FFFD', () => {
    const heading = (n: string) => bodyLines(itemPageMarkdown(page(n), urls))[0].slice(2);
    const unescaped = (s: string) => s.replace(/\\(.)/g, '$1');
    expect(unescaped(heading('[click me](https://evil.example/)'))).toBe('[click me](https://evil.example/)');
    expect(unescaped(heading('1. numbered'))).toBe('1. numbered');
    expect(unescaped(heading('Linen\u202egnp.exe'))).toBe('Linen\ufffdgnp.exe');
  });

  it('keep the JSON fence of the Markdown page closed and its JSON the same record', () => {
    for (const n of HOSTILE) {
      const md = itemPageMarkdown(page(n), urls);
      const fence = md.slice(md.indexOf('```json\n') + 8);
      const json = fence.slice(0, fence.indexOf('\n```'));
      expect(json, JSON.stringify(n)).not.toMatch(/[`\n\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      expect(JSON.parse(json), JSON.stringify(n)).toEqual(page(n));
    }
  });

  it('are escaped in the HTML page, bidirectional controls and line separators included', () => {
    for (const n of HOSTILE) {
      const html = itemPageHtml(page(n), urls);
      expect(html, JSON.stringify(n)).not.toMatch(/<script>alert|<img src=x|<a href="https:\/\/evil/);
      expect(html.match(/<script/g), JSON.stringify(n)).toHaveLength(1);
      expect(html, JSON.stringify(n)).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    }
  });

  it('render as plain link text on the home page, in Markdown and HTML', () => {
    const markets = [{ market: M, at: NOW - (NOW % 3_600_000), top: HOSTILE.map((name, i) => ({ key: 100 + i, name, price: 100, quantity: 1 })) }];
    const { html, markdown } = homePage(BASE, markets);
    const plainHome = homePage(BASE, [{ ...markets[0], top: HOSTILE.map((_, i) => ({ key: 100 + i, name: 'Plain', price: 100, quantity: 1 })) }]);
    expect(markdown.split('\n')).toHaveLength(plainHome.markdown.split('\n').length);
    const items = markdown.split('\n').filter((l) => /^\d+\. \[/.test(l));
    expect(items).toHaveLength(HOSTILE.length);
    for (const l of items) {
      // One link per line: the name's own brackets are escaped, so the only link is the item page's.
      expect(l.match(/(^|[^\\])\]\(/g), l).toHaveLength(1);
      expect(l, l).not.toMatch(/https?:\/\/evil|www\.evil|(^|[^\\])</);
    }
    expect(html).not.toMatch(/<script>alert|<img src=x/);
  });
});
