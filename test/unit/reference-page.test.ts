/**
 * Issue 24 point 8: `/docs/api/reference` renders every operation of the generated OpenAPI document
 * (`/openapi.full.json`) with its parameters, request body, answers per status and an example each, grouped
 * by tag with a table of contents and anchors, in the site's layout, with a Markdown twin.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RouteDoc } from '../../shared/api/route-doc';
import { FULL_DOCS, fullOpenApiDocument } from '../../shared/pages/openapi-full';
import { referenceView } from '../../shared/pages/reference-model';
import { referenceHtmlOf, referenceMarkdownOf, referencePage } from '../../shared/pages/reference-page';
import { escapeHtml } from '../../shared/pages/render';
import { EXAMPLE_MS, exampleOf, patternSample, pointerResolver, prettyJson } from '../../shared/pages/schema-example';

const BASE = 'https://markets.example.test/';
// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
const doc = fullOpenApiDocument(BASE) as any;
const { html, markdown } = referencePage(BASE);
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

interface DocOperation {
  method: string;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI operation object
  op: any;
}
const operations: DocOperation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI path item
  METHODS.filter((m) => (item as any)[m]).map((method) => ({ method, path, op: (item as any)[method] })),
);

/** The HTML of one operation's card: the `<section>` whose id is its operationId. */
function card(id: string): string {
  const start = html.indexOf(`<section class="ref-op card" id="${id}"`);
  expect(start, `no card for ${id}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
}

/** The Markdown of one operation: from its heading to the next operation or section heading. */
function mdSection(method: string, path: string): string {
  const heading = `\n### ${method.toUpperCase()} ${path}\n`;
  const start = markdown.indexOf(heading);
  expect(start, `no section for ${method} ${path}`).toBeGreaterThanOrEqual(0);
  const rest = markdown.slice(start + heading.length);
  const end = rest.search(/\n##?#? /);
  return end < 0 ? rest : rest.slice(0, end);
}

describe('the API reference page', () => {
  it('renders every operation of the generated document with its parameters, body and each answer status', () => {
    expect(operations.length).toBeGreaterThan(70);
    for (const { method, path, op } of operations) {
      const c = card(op.operationId);
      expect(c).toContain(`>${method.toUpperCase()}</span> <code class="ref-path">${escapeHtml(path)}</code>`);
      for (const p of op.parameters ?? []) expect(c, `${op.operationId} ${p.name}`).toContain(`<li><code>${escapeHtml(p.name)}</code> <i>${p.in}, `);
      if (op.requestBody) expect(c).toMatch(/<h4>Request body( \(required\))?<\/h4>/);
      else expect(c).not.toContain('Request body');
      const statuses = Object.keys(op.responses);
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) expect(c, `${op.operationId} ${status}`).toContain(`<span class="ref-status ref-status-${status[0]}">${status}</span>`);
    }
  });

  it('groups operations by tag in the document order, with a table of contents linking to each anchor', () => {
    const tags: string[] = doc.tags.map((t: { name: string }) => t.name);
    const headings = [...html.matchAll(/<section class="ref-tag" aria-labelledby="([^"]+)"><h2 id="\1">([^<]+)<\/h2>/g)].map((m) => m[2]);
    expect(headings).toEqual(tags.filter((t) => operations.some((o) => o.op.tags[0] === t)));
    const toc = html.slice(html.indexOf('<nav class="ref-toc'), html.indexOf('</nav>', html.indexOf('<nav class="ref-toc')));
    for (const { op } of operations) {
      expect(toc).toContain(`href="#${op.operationId}"`);
      expect(html.match(new RegExp(`id="${op.operationId}"`, 'g'))).toHaveLength(1);
      // The card sits under its tag's heading.
      const tagAt = html.indexOf(`>${escapeHtml(op.tags[0])}</h2>`);
      expect(html.indexOf(`id="${op.operationId}"`)).toBeGreaterThan(tagAt);
    }
  });

  it('gives every operation an example request, and every JSON body and answer an example', () => {
    const view = referenceView(doc);
    let errorsChecked = 0;
    for (const op of view.tags.flatMap((t) => t.operations)) {
      expect(op.request).toMatch(
        new RegExp(`^curl ${op.method === 'GET' ? '' : op.method === 'HEAD' ? '-I ' : `-X ${op.method} `}'https://markets\\.example\\.test/`),
      );
      expect(/'(https:[^']*)'/.exec(op.request)?.[1], op.id).not.toMatch(/[{}]/); // every path parameter filled in
      expect(card(op.id)).toContain(`<pre class="ref-example" tabindex="0"><code>${escapeHtml(op.request)}</code></pre>`);
      if (op.body) expect(op.request).toContain(`--data '`);
      for (const a of op.answers) {
        if (!a.mediaTypes.some((t) => t.startsWith('application/json'))) continue;
        expect(a.example, `${op.id} ${a.status}`).toBeDefined();
        expect(card(op.id)).toContain(escapeHtml(a.example as string));
        // An error's example names one of the codes its schema allows.
        const error = doc.paths[op.path][op.method.toLowerCase()].responses[a.status].content['application/json'].schema.properties?.error;
        const codes: unknown[] | undefined = error?.enum ?? (error && 'const' in error ? [error.const] : undefined);
        if (codes) {
          expect(codes).toContain(JSON.parse(a.example as string).error);
          errorsChecked++;
        }
      }
    }
    expect(errorsChecked).toBeGreaterThan(100);
  });

  it("gives examples the route's own schemas accept: path and query values, bodies and success answers", () => {
    const view = referenceView(doc);
    for (const op of view.tags.flatMap((t) => t.operations)) {
      const route: RouteDoc | undefined = (FULL_DOCS as Record<string, RouteDoc>)[`${op.method} ${op.path}`];
      if (!route) continue; // the retired ANY route: every method answers 404
      for (const p of op.parameters) {
        const pattern = doc.paths[op.path][op.method.toLowerCase()].parameters.find((x: { name: string }) => x.name === p.name).schema.pattern;
        if (pattern) expect(String(p.example), `${op.id} ${p.name}`).toMatch(new RegExp(pattern));
      }
      if (route.query) {
        const query = Object.fromEntries(op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.example]));
        expect(route.query.safeParse(query).error?.issues, `${op.id} query`).toBeUndefined();
      }
      if (route.body) expect(route.body.safeParse(JSON.parse(op.body?.example as string)).error?.issues, `${op.id} body`).toBeUndefined();
      const ok = op.answers.find((a) => a.status === '200');
      if (route.answer) expect(route.answer.safeParse(JSON.parse(ok?.example as string)).error?.issues, `${op.id} answer`).toBeUndefined();
    }
  });

  it('has the same content in Markdown: a contents table per tag, then every operation with its parameters, body, answers and examples', () => {
    expect(markdown).toMatch(/^# API reference\n/);
    for (const { method, path, op } of operations) {
      expect(markdown).toContain(`| ${method.toUpperCase()} | \`${path}\` |`);
      const s = mdSection(method, path);
      for (const p of op.parameters ?? []) expect(s).toContain(`- \`${p.name}\` (${p.in}, `);
      if (op.requestBody) expect(s).toMatch(/Request body( \(required\))?:/);
      expect(s).toContain('Example request:\n\n```sh\ncurl ');
      for (const status of Object.keys(op.responses)) expect(s, `${method} ${path} ${status}`).toMatch(new RegExp(`\\n#### ${status} `));
      const json = Object.values(op.responses).some((r) => Object.keys((r as { content?: object }).content ?? {}).includes('application/json'));
      if (json) expect(s).toMatch(/Example 200 answer:\n\n```json\n|Example \d{3} answer:/);
    }
  });

  it('is a page of the site: its header, the stylesheet with the reference block, a Markdown link, no script', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<header class="site"><nav aria-label="Site">');
    expect(html).toContain(`<link rel="alternate" type="text/markdown" href="${BASE}docs/api/reference.md">`);
    expect(html).toMatch(/<style>[^<]*\.ref-op\{[^<]*<\/style>/);
    expect(html).not.toMatch(/<script/i);
  });

  it('stays light: at most 40 KB gzip for the whole reference (about 18 KB today)', () => {
    expect(gzipSync(html).length).toBeLessThanOrEqual(40_000);
    expect(gzipSync(markdown).length).toBeLessThanOrEqual(20_000);
  });
});

/** A small document of our own: what the generated one does not use yet (references, examples, headers). */
const SMALL = {
  openapi: '3.1.0',
  info: { title: 'Small', version: '1' },
  servers: [{ url: 'https://api.example.test' }],
  tags: [{ name: 'Things' }],
  security: [{ bearer: [] }],
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Thing: { type: 'object', properties: { id: { type: 'string' }, size: { type: 'integer', minimum: 3 } }, required: ['id'] },
    },
    parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 't-1' } },
  },
  paths: {
    '/things/{id}': {
      parameters: [{ $ref: '#/components/parameters/Id' }],
      put: {
        operationId: 'putThing',
        tags: ['Things'],
        summary: 'Replaces <b>a</b> thing',
        description: 'Replaces a thing. <script>alert(1)</script> `code`',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: { id: 'own body' } } } },
        responses: {
          '200': {
            description: 'OK',
            headers: { ETag: { description: 'the version', schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, examples: { first: { value: { id: 'own answer' } } } } },
          },
          '404': { description: 'not_found', content: { 'application/json': { schema: { type: 'object', properties: { error: { const: 'not_found' } } } } } },
        },
      },
      get: {
        tags: ['Untagged elsewhere'],
        security: [{}],
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      },
    },
  },
};

describe('the reference renderer', () => {
  const view = referenceView(SMALL);
  const small = referenceHtmlOf(view, 'https://api.example.test/');
  const put = view.tags[0].operations[0];

  it("takes examples from the document when it has them: a parameter's, a media type's example and examples", () => {
    expect(put.request).toContain("'https://api.example.test/things/t-1'");
    expect(JSON.parse(put.body?.example as string)).toEqual({ id: 'own body' });
    expect(JSON.parse(put.answers[0].example as string)).toEqual({ id: 'own answer' });
    expect(put.answers[0].headers).toEqual([{ name: 'ETag', description: 'the version', type: 'string' }]);
  });

  it('follows references, and generates an example from the schema when the document has none', () => {
    const get = view.tags[1].operations[0];
    expect(JSON.parse(get.answers[0].example as string)).toEqual({ id: 'string', size: 3 });
    expect(get.answers[0].row?.type).toBe('Thing');
    expect(get.answers[0].row?.children.map((r) => [r.name, r.type, r.required])).toEqual([
      ['id', 'string', true],
      ['size', 'integer', false],
    ]);
    expect(get.id).toBe('get-things-id');
    expect(small).toContain('id="get-things-id"');
  });

  it('adds the credential an operation needs to its request, and none where anonymous callers are welcome', () => {
    expect(put.request).toContain("-H 'Authorization: Bearer <token>'");
    expect(view.tags[1].operations[0].request).not.toContain('Authorization');
    expect(view.tags[1].operations[0].security).toBe('no credentials');
  });

  it('escapes what the document says: no markup of its own reaches the page', () => {
    expect(small).not.toContain('<script>alert');
    expect(small).not.toContain('<b>a</b>');
    expect(small).toContain('&lt;script&gt;alert(1)&lt;/script&gt; <code>code</code>');
    expect(referenceMarkdownOf(view, 'https://api.example.test/')).toContain('### PUT /things/{id}');
  });
});

describe('generated examples', () => {
  const none = pointerResolver({});

  it('match the patterns the documents use', () => {
    const patterns = new Set<string>();
    const walk = (v: unknown): void => {
      if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        if (typeof o.pattern === 'string') patterns.add(o.pattern);
        Object.values(o).forEach(walk);
      }
    };
    walk(doc);
    expect(patterns.size).toBeGreaterThan(3);
    for (const p of patterns) expect(patternSample(p), p).toMatch(new RegExp(p, 'u'));
    expect(patternSample('^([01]\\d|2[0-3]):([0-5]\\d)$')).toBe('00:00');
    expect(patternSample('^(?=lookahead)$')).toBeNull();
  });

  it('follow the schema: bounds, enums, defaults, nullable values, tuples, maps and times', () => {
    expect(exampleOf({ type: 'integer', minimum: 5, maximum: 9 }, none)).toBe(5);
    expect(exampleOf({ type: 'integer', description: 'Unix ms' }, none)).toBe(EXAMPLE_MS);
    expect(exampleOf({ type: 'string', enum: ['m1', 'h1', 'd1'], default: 'd1' }, none)).toBe('d1');
    expect(exampleOf({ type: 'string', enum: ['m1', 'h1'] }, none)).toBe('m1');
    expect(exampleOf({ anyOf: [{ type: 'null' }, { type: 'boolean' }] }, none)).toBe(true);
    expect(exampleOf({ type: ['null', 'string'], minLength: 8 }, none)).toBe('stringxx');
    expect(exampleOf({ type: 'array', prefixItems: [{ type: 'integer' }, { const: 'x' }], items: false }, none)).toEqual([0, 'x']);
    expect(exampleOf({ type: 'array', items: { type: 'integer' }, minItems: 3 }, none)).toEqual([0, 0, 0]);
    expect(exampleOf({ type: 'object', propertyNames: { pattern: '^[0-9]+$' }, additionalProperties: { type: 'boolean' } }, none)).toEqual({ '0': true });
    expect(exampleOf({ type: 'string', format: 'email' }, none)).toBe('user@example.com');
    expect(exampleOf({ type: 'string', examples: ['given'] }, none)).toBe('given');
  });

  it('print like the answers: tuples on one line, the same value once parsed', () => {
    const value = { a: [[1, 2, null]], b: {}, c: [], d: 'x' };
    expect(prettyJson(value)).toBe('{\n  "a": [\n    [1, 2, null]\n  ],\n  "b": {},\n  "c": [],\n  "d": "x"\n}');
    expect(JSON.parse(prettyJson(value))).toEqual(value);
  });
});
