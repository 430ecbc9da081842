/**
 * `/docs/api/reference` (spec api.md Conventions; issue 24 point 8): every operation of the generated OpenAPI
 * document (`/openapi.full.json`) with its parameters, request body, answers per status and examples, grouped
 * by tag behind a table of contents, in the site's layout. Server-rendered HTML (no script: answers other than
 * success fold into `<details>`) and a Markdown twin. Pure.
 */
import { fullOpenApiDocument } from './openapi-full';
import { API_INTRO } from './reference';
import type { AnswerView, ContentView, OperationView, ReferenceView, TagView } from './reference-model';
import { referenceView } from './reference-model';
import { escapeHtml, htmlDocument } from './render';
import { oneLine, proseHtml, schemaHtml, schemaMarkdown } from './schema-view';

/** Answers a reader wants first (success, redirects, upgrades) are shown open; errors fold. */
const isOpen = (status: string): boolean => /^[123]/.test(status);
const verbClass = (method: string): string => `ref-verb ref-verb-${method.toLowerCase()}`;

const paragraphs = (s: string): string =>
  s
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => `<p>${proseHtml(p.trim())}</p>`)
    .join('');

function contentHtml(c: ContentView, exampleLabel: string): string {
  return [
    c.mediaTypes.length ? `<p class="ref-media">${c.mediaTypes.map((t) => `<code>${escapeHtml(t)}</code>`).join(' ')}</p>` : '',
    c.row ? schemaHtml(c.row) : '',
    c.example === undefined
      ? ''
      : `<p class="ref-label">${escapeHtml(exampleLabel)}</p><pre class="ref-example" tabindex="0"><code>${escapeHtml(c.example)}</code></pre>`,
  ].join('');
}

function answerHtml(a: AnswerView): string {
  const head = `<span class="ref-status ref-status-${escapeHtml(a.status[0] ?? 'x')}">${escapeHtml(a.status)}</span> ${proseHtml(a.description)}`;
  const headers = a.headers.length
    ? `<div class="ref-schema"><p>Headers</p><ul>${a.headers.map((h) => `<li><code>${escapeHtml(h.name)}</code> <i>${escapeHtml(h.type)}</i>${h.description ? ` <span>${proseHtml(h.description)}</span>` : ''}</li>`).join('')}</ul></div>`
    : '';
  const inner = `${headers}${contentHtml(a, `Example ${a.status} answer`)}`;
  if (isOpen(a.status)) return `<div class="ref-answer"><p class="ref-answer-head">${head}</p>${inner}</div>`;
  return `<details class="ref-answer"><summary class="ref-answer-head">${head}</summary>${inner}</details>`;
}

function operationHtml(op: OperationView): string {
  const id = escapeHtml(op.id);
  const params = op.parameters.map((p) => ({ ...p.row, name: p.name, type: `${p.in}, ${p.row.type}` }));
  return [
    `<section class="ref-op card" id="${id}" aria-labelledby="${id}-h">`,
    `<h3 id="${id}-h"><a class="ref-anchor" href="#${id}"><span class="${verbClass(op.method)}">${escapeHtml(op.method)}</span> <code class="ref-path">${escapeHtml(op.path)}</code></a></h3>`,
    op.description ? paragraphs(op.description) : op.summary ? `<p>${proseHtml(op.summary)}</p>` : '',
    op.security ? `<p class="muted">Credentials: ${escapeHtml(op.security)}</p>` : '',
    params.length
      ? `<h4>Parameters</h4>${schemaHtml({ name: '', type: `${params.length} parameter${params.length > 1 ? 's' : ''}`, required: false, notes: [], children: params })}`
      : '',
    op.body ? `<h4>Request body${op.body.required ? ' (required)' : ''}</h4>${contentHtml({ ...op.body, example: undefined }, '')}` : '',
    `<h4>Example request</h4><pre class="ref-example" tabindex="0"><code>${escapeHtml(op.request)}</code></pre>`,
    '<h4>Answers</h4>',
    op.answers.map(answerHtml).join(''),
    '</section>',
  ].join('');
}

function tocHtml(tags: TagView[]): string {
  const entries = tags.map(
    (t) =>
      `<li><a href="#${escapeHtml(t.id)}">${escapeHtml(t.name)}</a><ul>${t.operations
        .map(
          (op) =>
            `<li><a href="#${escapeHtml(op.id)}"><span class="${verbClass(op.method)}">${escapeHtml(op.method)}</span> <code>${escapeHtml(op.path)}</code></a></li>`,
        )
        .join('')}</ul></li>`,
  );
  return `<nav class="ref-toc card" aria-labelledby="contents"><h2 id="contents">Contents</h2><ul>${entries.join('')}</ul></nav>`;
}

/** The page's links to the machine-readable documents. */
const docLinks = (base: string): Array<[string, string]> => [
  ['Full OpenAPI description', `${base}openapi.full.json`],
  ['Integration subset (OpenAPI)', `${base}openapi.json`],
  ['This page in Markdown', `${base}docs/api/reference.md`],
];

const INTRO = `${API_INTRO} Generated from the OpenAPI description the service serves.`;

/** The reference as an HTML page in the site's layout. */
export function referenceHtmlOf(view: ReferenceView, publicBase: string): string {
  const link = (href: string, t: string): string => `<a href="${escapeHtml(href)}">${escapeHtml(t)}</a>`;
  const body = [
    `<header class="site"><nav aria-label="Site">${link(publicBase, 'Market Data Service')}<span class="crumb" aria-hidden="true">/</span><span class="crumb">API reference</span></nav></header>`,
    '<main class="ref">',
    '<h1>API reference</h1>',
    `<p>${proseHtml(INTRO)}</p>`,
    `<p>Base URL: <code>${escapeHtml(view.server)}</code>. ${docLinks(publicBase)
      .map(([t, u]) => link(u, t))
      .join(' · ')}</p>`,
    view.schemes.length
      ? `<h2>Credentials</h2><ul>${view.schemes.map((s) => `<li><code>${escapeHtml(s.name)}</code>: ${proseHtml(s.text)}</li>`).join('')}</ul>${view.security ? `<p class="muted">Accepted unless an operation declares its own: ${escapeHtml(view.security)}. Each operation's description says what it needs.</p>` : ''}`
      : '',
    tocHtml(view.tags),
    ...view.tags.map(
      (t) =>
        `<section class="ref-tag" aria-labelledby="${escapeHtml(t.id)}"><h2 id="${escapeHtml(t.id)}">${escapeHtml(t.name)}</h2>${t.operations.map(operationHtml).join('\n')}</section>`,
    ),
    '</main>',
  ].join('\n');
  return htmlDocument({
    title: 'API reference · Market Data Service',
    description: 'Every endpoint of the Market Data Service API: parameters, request bodies, answers and examples.',
    url: `${publicBase}docs/api/reference`,
    markdownUrl: `${publicBase}docs/api/reference.md`,
    body,
  });
}

const fence = (lang: string, text: string): string[] => {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return [`${ticks}${lang}`, text, ticks];
};

function contentMarkdown(c: ContentView, exampleLabel: string): string[] {
  return [
    ...(c.mediaTypes.length ? [`Media types: ${c.mediaTypes.map((t) => `\`${t}\``).join(', ')}`, ''] : []),
    ...(c.row ? [...schemaMarkdown(c.row), ''] : []),
    ...(c.example === undefined ? [] : [`${exampleLabel}:`, '', ...fence('json', c.example), '']),
  ];
}

function operationMarkdown(op: OperationView): string[] {
  return [
    `### ${op.method} ${op.path}`,
    '',
    ...(op.description || op.summary ? [op.description || op.summary, ''] : []),
    ...(op.security ? [`Credentials: ${op.security}.`, ''] : []),
    ...(op.parameters.length
      ? ['Parameters:', '', ...op.parameters.flatMap((p) => schemaMarkdown({ ...p.row, name: p.name, type: `${p.in}, ${p.row.type}` })), '']
      : []),
    ...(op.body ? [`Request body${op.body.required ? ' (required)' : ''}:`, '', ...contentMarkdown({ ...op.body, example: undefined }, '')] : []),
    'Example request:',
    '',
    ...fence('sh', op.request),
    '',
    ...op.answers.flatMap((a) => [
      `#### ${a.status} ${oneLine(a.description)}`,
      '',
      ...(a.headers.length ? [...a.headers.map((h) => `- header \`${h.name}\` (${h.type})${h.description ? `: ${oneLine(h.description)}` : ''}`), ''] : []),
      ...contentMarkdown(a, `Example ${a.status} answer`),
    ]),
  ];
}

const cell = (s: string): string => oneLine(s).replace(/\|/g, '\\|');

/** The reference in Markdown: a contents table per tag, then every operation. */
export function referenceMarkdownOf(view: ReferenceView, publicBase: string): string {
  const lines = [
    '# API reference',
    '',
    INTRO,
    '',
    `Base URL: ${view.server}. ${docLinks(publicBase)
      .map(([t, u]) => `[${t}](${u})`)
      .join(' · ')}`,
    '',
  ];
  if (view.schemes.length) {
    lines.push('## Credentials', '', ...view.schemes.map((s) => `- \`${s.name}\`: ${s.text}`), '');
    if (view.security) lines.push(`Accepted unless an operation declares its own: ${view.security}. Each operation's description says what it needs.`, '');
  }
  lines.push('## Contents', '');
  for (const t of view.tags) {
    lines.push(`### ${t.name}`, '', '| Method | Path | Summary |', '|---|---|---|');
    for (const op of t.operations) lines.push(`| ${op.method} | \`${op.path}\` | ${cell(op.summary)} |`);
    lines.push('');
  }
  for (const t of view.tags) lines.push(`## ${t.name}`, '', ...t.operations.flatMap(operationMarkdown));
  return lines.join('\n');
}

/** Rendered once per base URL: the document never changes while a function lives. */
const rendered = new Map<string, { html: string; markdown: string }>();

/** The reference page of a deployment (public base URL ending with `/`), in both formats. */
export function referencePage(publicBase: string): { html: string; markdown: string } {
  const known = rendered.get(publicBase);
  if (known) return known;
  const view = referenceView(fullOpenApiDocument(publicBase));
  const page = { html: referenceHtmlOf(view, publicBase), markdown: referenceMarkdownOf(view, publicBase) };
  rendered.set(publicBase, page);
  return page;
}
