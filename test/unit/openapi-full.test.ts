/**
 * Issue 15.1 / 12.5: `/openapi.full.json` describes every HTTP route of the manifest, is generated from the
 * zod schemas the routes parse with, and is clean under an OpenAPI linter (Redocly's recommended ruleset:
 * any error fails; the only warnings allowed are the ones the spec's own paths imply).
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { AlertInput } from '../../shared/api/settings.schemas';
import { FULL_DOCS, fullOpenApiDocument } from '../../shared/pages/openapi-full';
import { HTTP_ROUTES } from '../../shared/topology';

const BASE = 'https://markets.example.test/';
// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
const doc = fullOpenApiDocument(BASE) as any;

/** Warnings the spec's paths and routes imply: sibling templates (`/{item}/book` vs `/books/{at}`), and routes that never answer 2xx. */
const ALLOWED_WARNINGS: Record<string, readonly string[]> = {
  'no-ambiguous-paths': ['/api/v1/ah/{market}/{item}/candles', '/api/v1/ah/{market}/{item}/book'],
  'operation-2xx-response': ['/api/v1/ah/scans', '/api/v1/downloads/desktop/latest', '/api/v1/live'],
};

describe('the full OpenAPI document', () => {
  it('lints without an error under the recommended ruleset, with no unexpected warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.full.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    const unexpected = problems
      .filter((p) => p.severity !== 'error')
      .filter(
        (p) =>
          !(ALLOWED_WARNINGS[p.ruleId] ?? []).some(
            (path) =>
              decodeURIComponent(p.location[0]?.pointer ?? '')
                .replaceAll('~1', '/')
                .includes(`/paths/${path}/`) ||
              decodeURIComponent(p.location[0]?.pointer ?? '')
                .replaceAll('~1', '/')
                .endsWith(`/paths/${path}`),
          ),
      )
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(unexpected).toEqual([]);
  });

  it('describes every HTTP route of the manifest (api, upload, pages) and nothing else', () => {
    const methods = (m: string) => (m === 'ANY' ? ['get', 'post', 'put', 'patch', 'delete'] : [m.toLowerCase()]);
    for (const r of HTTP_ROUTES) {
      expect(FULL_DOCS, `${r.method} ${r.path}`).toHaveProperty([`${r.method} ${r.path}`]);
      for (const m of methods(r.method)) expect(doc.paths[r.path]?.[m], `${m} ${r.path}`).toBeDefined();
    }
    const described = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    const manifest = HTTP_ROUTES.flatMap((r) => methods(r.method).map((m) => `${m} ${r.path}`));
    expect(described.sort()).toEqual([...new Set(manifest)].sort());
    expect(Object.keys(FULL_DOCS).sort()).toEqual(HTTP_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('takes queries, bodies and answers from the schemas the routes parse with', () => {
    const candles = doc.paths['/api/v1/ah/{market}/candles'].get;
    const byName = Object.fromEntries(candles.parameters.map((p: { name: string }) => [p.name, p]));
    expect(byName.market).toMatchObject({ in: 'path', required: true, schema: { enum: expect.arrayContaining(['forever.normal.alliance.us']) } });
    expect(byName.items).toMatchObject({ in: 'query', required: true });
    expect(byName.res).toMatchObject({ in: 'query', required: false, schema: { enum: ['m1', 'h1', 'd1'], default: 'd1' } });
    expect(Object.keys(candles.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    expect(candles.responses['400'].content['application/json'].schema.properties.error.enum).toEqual(['bad_market', 'bad_query']);

    const post = doc.paths['/api/v1/market/alerts'].post;
    const body = post.requestBody.content['application/json'].schema;
    expect(body.properties.kind.enum).toEqual(AlertInput.in.shape.kind.options);
    expect(body.required).toEqual(['market', 'kind', 'item', 'value']);
    expect(post.responses['200'].content['application/json'].schema.properties.alert.properties.armed).toEqual({ type: 'boolean' });

    const book = doc.paths['/api/v1/ah/books'].post.requestBody.content['application/json'].schema;
    expect(book.properties.entries).toMatchObject({ type: 'array', maxItems: 200000, items: { prefixItems: expect.any(Array) } });
    expect(doc.paths['/item/{key}'].get.responses['200'].content).toHaveProperty(['text/html; charset=utf-8']);
    expect(doc.paths['/item/{key}'].head.responses['200'].content).toBeUndefined();
    expect(doc.servers[0].url).toBe('https://markets.example.test');
  });
});
