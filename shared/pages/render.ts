/**
 * Rendering public content pages (spec api.md Conventions): one HTML shell, Markdown answers, `Vary: Accept`
 * on both, and error pages whose Markdown links to discovery and docs.
 */
import { inertText, UNSAFE_CHAR_CLASS } from '../domain/inert-text';
import type { ErrorCode } from '../errors';
import { ERROR_STATUS } from '../http/status';
import type { HttpResult } from '../http/types';
import type { PageFormat } from './negotiate';
import { PAGE_CSS } from './style';

export const HTML_TYPE = 'text/html; charset=utf-8';
export const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';
/** Discovery documents change only with a deployment. */
export const DOCS_CACHE = 'public, max-age=3600';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
const SCRIPT_ESCAPED = new RegExp(`[<>&]|${UNSAFE_CHAR_CLASS}`, 'g');
const FENCE_ESCAPED = new RegExp(`\`|${UNSAFE_CHAR_CLASS}`, 'g');

/**
 * JSON safe inside `<script>`: no `</script>`, `<!--` or line separators can end or confuse the element, and
 * no bidirectional control reorders what a reader of the source sees. The same JSON once parsed.
 */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(SCRIPT_ESCAPED, unicodeEscape);

/** JSON inside a Markdown code fence: a backtick cannot close the fence, nor a control show. The same JSON once parsed. */
export const fencedJson = (value: unknown): string => JSON.stringify(value).replace(FENCE_ESCAPED, unicodeEscape);

/**
 * Text that reads as itself in Markdown wherever it stands (a heading, a list item, a link text, a table cell,
 * the start of a line), whatever its source: one line with no controls (domain/inert-text.ts shows them as
 * U+FFFD), every character with an inline meaning backslash-escaped (CommonMark allows it before any ASCII
 * punctuation), a start that could open a block (`-`, `+`, `=`, `1.`, `1)`, indentation) escaped or dropped,
 * an entity reference kept literal, and GFM's bare `www.`, `scheme://` and e-mail autolinks broken.
 */
export function escapeMarkdown(s: string): string {
  return inertText(s)
    .trimStart()
    .replace(/[\\`*_[\]<>|#~@]/g, '\\$&')
    .replace(/&(?=#?[a-z0-9]+;)/gi, '\\&')
    .replace(/:(?=\/\/)/g, '\\:')
    .replace(/\b(www)\./gi, '$1\\.')
    .replace(/^[-+=]/, '\\$&')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

export interface HtmlPage {
  title: string;
  description: string;
  /** Absolute URL of the page. */
  url: string;
  /** Absolute URL of its Markdown twin. */
  markdownUrl?: string;
  body: string;
  /** Extra `<head>` content (already escaped). */
  head?: string;
}

/** The one HTML shell of every page: title, description and `og:` meta, canonical and Markdown links, the stylesheet. */
export function htmlDocument(p: HtmlPage): string {
  const t = escapeHtml(p.title);
  const d = escapeHtml(p.description);
  const u = escapeHtml(p.url);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${t}</title>`,
    `<meta name="description" content="${d}">`,
    `<meta property="og:title" content="${t}">`,
    `<meta property="og:description" content="${d}">`,
    '<meta property="og:type" content="website">',
    `<meta property="og:url" content="${u}">`,
    `<link rel="canonical" href="${u}">`,
    p.markdownUrl ? `<link rel="alternate" type="text/markdown" href="${escapeHtml(p.markdownUrl)}">` : '',
    p.head ?? '',
    `<style>${PAGE_CSS}</style>`,
    '</head>',
    '<body>',
    p.body,
    '</body>',
    '</html>',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/** A page answer in the negotiated format; both carry `Vary: Accept` so caches keep them apart. */
export function pageResult(
  format: PageFormat,
  content: { html: string; markdown: string },
  cacheControl: string,
  status = 200,
  headers: Record<string, string> = {},
): HttpResult {
  return {
    statusCode: status,
    headers: { 'content-type': format === 'markdown' ? MARKDOWN_TYPE : HTML_TYPE, 'cache-control': cacheControl, vary: 'Accept', ...headers },
    body: format === 'markdown' ? content.markdown : content.html,
  };
}

/**
 * An HTML page that loads the website's app (issue 24 point 1): its entry script as a module (deferred, so
 * the page draws first), in the head so the download starts at once. Markdown, errors and a deployment
 * without a build (`entry` '') are left as they are: an unknown path never gets the app.
 */
export function withSiteScript(page: HttpResult, entry: string): HttpResult {
  const type = String(page.headers?.['content-type'] ?? '');
  if (!entry || page.statusCode !== 200 || type !== HTML_TYPE || typeof page.body !== 'string') return page;
  const tag = `<script type="module" src="${escapeHtml(entry)}" defer></script>`;
  return { ...page, body: page.body.replace('</head>', `${tag}\n</head>`) };
}

/** A text document that does not negotiate (llms.txt, AGENTS.md, sitemap, JSON documents). */
export function textResult(contentType: string, body: string, cacheControl = DOCS_CACHE): HttpResult {
  return { statusCode: 200, headers: { 'content-type': contentType, 'cache-control': cacheControl }, body };
}

/** An error page: the spec's status; Markdown links to the discovery documents and the API reference. */
export function pageError(format: PageFormat, publicBase: string, code: ErrorCode, message: string): HttpResult {
  const status = ERROR_STATUS[code];
  const heading = status === 404 ? 'Not found' : status === 400 ? 'Bad request' : 'Error';
  const links: Array<[string, string]> = [
    ['API reference', `${publicBase}docs/api/reference.md`],
    ['OpenAPI description', `${publicBase}openapi.json`],
    ['API catalog', `${publicBase}.well-known/api-catalog`],
    ['llms.txt', `${publicBase}llms.txt`],
    ['Home', publicBase],
  ];
  const markdown = [
    `# ${heading} (${status})`,
    '',
    `${escapeMarkdown(message)} (\`${code}\`)`,
    '',
    'Where to go instead:',
    '',
    ...links.map(([t, u]) => `- [${t}](${u})`),
    '',
  ].join('\n');
  const html = htmlDocument({
    title: `${heading} (${status})`,
    description: message,
    url: publicBase,
    body: [
      `<main>`,
      `<h1>${heading} (${status})</h1>`,
      `<p>${escapeHtml(message)}</p>`,
      '<ul>',
      ...links.map(([t, u]) => `<li><a href="${escapeHtml(u)}">${escapeHtml(t)}</a></li>`),
      '</ul>',
      '</main>',
    ].join('\n'),
    head: '<meta name="robots" content="noindex">',
  });
  return pageResult(format, { html, markdown }, 'no-store', status);
}
