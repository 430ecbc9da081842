/**
 * Issue 24 point 10: the OpenAPI documents describe exactly what the service answers. A client generated from
 * `/openapi.full.json` found undocumented 503s, 304s, 303s and the live 101, undeclared headers, no
 * per-operation security, discovery documents typed as strings, requests valid by the document refused with
 * 400, and item parameters typed differently in the two documents. Each of those is held here; the
 * integration suite holds every real answer to the documents (test/support/openapi-fetch.ts).
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { routes as apiRoutes } from '../../lambdas/api/routes';
import { routes as pageRoutes } from '../../lambdas/pages/routes';
import { routes as uploadRoutes } from '../../lambdas/upload/routes';
import { PairBody } from '../../shared/api/account.schemas';
import { CatalogueBody } from '../../shared/api/catalogue-upload.schemas';
import { putSubscriptionBody } from '../../shared/api/push.schemas';
import { AlertInput, BoardsDocument, WatchBody } from '../../shared/api/settings.schemas';
import { PUSH_SERVICE_HOSTS } from '../../shared/domain/push-subscription';
import type { Route } from '../../shared/http/handler';
import { openApiDocument } from '../../shared/pages/openapi';
import { fullOpenApiDocument } from '../../shared/pages/openapi-full';
import { HTTP_ROUTES } from '../../shared/topology';
import { SchemaChecker } from '../support/json-schema';

const BASE = 'https://markets.example.test/';
const PUSH = { hosts: [...PUSH_SERVICE_HOSTS], loopback: false };
// biome-ignore lint/suspicious/noExplicitAny: the documents are walked field by field
const full = fullOpenApiDocument(BASE, PUSH) as any;
// biome-ignore lint/suspicious/noExplicitAny: as above
const subset = openApiDocument(BASE) as any;
const checker = new SchemaChecker(full);

const methodsOf = (m: string) => (m === 'ANY' ? ['get', 'post', 'put', 'patch', 'delete'] : [m.toLowerCase()]);
const TABLE: Record<string, Route<never>> = { ...apiRoutes, ...uploadRoutes, ...pageRoutes } as never;
const ops = HTTP_ROUTES.flatMap((r) => methodsOf(r.method).map((m) => ({ key: `${r.method} ${r.path}`, path: r.path, method: m, op: full.paths[r.path][m] })));
// biome-ignore lint/suspicious/noExplicitAny: as above
const errorCodes = (op: any, status: number): string[] => {
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  // Where API Gateway may answer too (413, 503), the service's own body is the first of `anyOf`.
  return (schema?.anyOf?.[0] ?? schema)?.properties.error.enum ?? [];
};
const body = (path: string, method: string) => full.paths[path][method].requestBody.content['application/json'].schema;
const valid = (schema: unknown, value: unknown) => checker.check(schema as Record<string, unknown>, value).length === 0;

describe('the OpenAPI documents tell the truth', () => {
  it("states each operation's security as its route admits callers: 401 to anonymous callers exactly where a sign-in is needed", () => {
    for (const { key, op, path } of ops) {
      const access = TABLE[key].access;
      const anyone = op.security.some((r: object) => Object.keys(r).length === 0);
      const signInNeeded = access.kind === 'signedIn' || access.kind === 'feature';
      // The admin snapshot admits anyone, then refuses anonymous callers itself (401) and non-admins (403).
      const refusesAnonymous = signInNeeded || key === 'POST /api/v1/admin/snapshot';
      expect(anyone, key).toBe(!refusesAnonymous);
      if (path.startsWith('/api/') && access.kind !== 'retired') expect(errorCodes(op, 401), key).toContain('unauthenticated');
      if (access.kind === 'retired' || !path.startsWith('/api/')) expect(op.security, key).toEqual([{}]);
    }
    expect(full.paths['/api/v1/ah/books'].post.security).toEqual([{ deviceToken: [] }, { apiKey: [] }]);
    expect(full.paths['/api/v1/items/seen'].post.security).toEqual([{ deviceToken: [] }, { apiKey: [] }]);
    expect(full.paths['/api/v1/devices/confirm'].post.security).toEqual([{ sessionToken: [] }, { sessionCookie: [] }]);
    expect(Object.keys(full.components.securitySchemes).sort()).toEqual(['apiKey', 'deviceToken', 'sessionCookie', 'sessionToken']);
  });

  it('documents 503 unavailable on every credential-checked route, and the upload its three 503 codes', () => {
    for (const { key, op, path } of ops) {
      if (!path.startsWith('/api/') || key === 'ANY /api/v1/ah/scans') continue;
      expect(errorCodes(op, 503), key).toContain('unavailable');
      expect(errorCodes(op, 429), key).toContain('rate_limited');
      expect(op.responses['429'].headers['Retry-After'], key).toBeDefined();
    }
    expect(errorCodes(full.paths['/api/v1/ah/books'].post, 503).sort()).toEqual(['no_storage', 'storage_failed', 'unavailable']);
    expect(errorCodes(subset.paths['/api/v1/ah/books'].post, 503).sort()).toEqual(['no_storage', 'storage_failed', 'unavailable']);
  });

  it('types /openapi.json, /openapi.full.json and /.well-known/api-catalog as the objects they answer', () => {
    for (const [path, type] of [
      ['/openapi.json', 'application/json'],
      ['/openapi.full.json', 'application/json'],
      ['/.well-known/api-catalog', 'application/linkset+json'],
    ]) {
      const schema = full.paths[path].get.responses['200'].content[type].schema;
      expect(schema.type, path).toBe('object');
      expect(valid(schema, 'a string'), path).toBe(false);
    }
    expect(valid(full.paths['/openapi.full.json'].get.responses['200'].content['application/json'].schema, full)).toBe(true);
    expect(valid(full.paths['/openapi.json'].get.responses['200'].content['application/json'].schema, subset)).toBe(true);
  });

  it("documents 304 where ETags are honoured, the big answers' 303, the download's 302 and the live route's 101", () => {
    for (const path of ['/api/v1/items/{key}', '/api/v1/ah', '/api/v1/ah/{market}/{item}', '/api/v1/config', '/item/{key}', '/openapi.json']) {
      const r = full.paths[path].get.responses;
      expect(r['304'], path).toBeDefined();
      expect(r['200'].headers.ETag, path).toEqual({ $ref: '#/components/headers/ETag' });
    }
    for (const path of ['/api/v1/ah/{market}/history', '/api/v1/ah/{market}/intraday', '/api/v1/items', '/api/v1/ah/{market}/snapshot']) {
      const r = full.paths[path].get.responses['303'];
      expect(r.headers.Location, path).toBeDefined();
      expect(r.content['application/json'].schema.required, path).toEqual(['url']);
    }
    expect(full.paths['/api/v1/downloads/desktop/latest'].get.responses['302'].headers.Location).toBeDefined();
    expect(full.paths['/api/v1/live'].get.responses['101']).toBeDefined();
    expect(full.paths['/api/v1/live'].get.responses['200']).toBeUndefined();
    expect(subset.paths['/api/v1/items/{key}'].get.responses['304']).toBeDefined();
  });

  it('declares the headers the service sends: Cache-Control, Vary, ETag, RateLimit-*, X-Service-Build', () => {
    const me = full.paths['/api/v1/me'].get.responses;
    for (const status of ['200', '401', '429', '503'])
      expect(Object.keys(me[status].headers), status).toEqual(
        expect.arrayContaining(['Cache-Control', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
    expect(Object.keys(full.paths['/api/v1/items'].get.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-Service-Build', 'ETag', 'Vary', 'Cache-Control']),
    );
    expect(full.components.headers['RateLimit-Reset'].schema).toEqual({ type: 'integer', minimum: 1, maximum: 60 });
  });

  it('keeps /openapi.json clean under the linter now that it shares the full answers', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(subset), absoluteRef: 'openapi.json', config });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(problems.map((p) => p.ruleId).filter((r) => r !== 'info-license')).toEqual([]);
  });

  it('types item and key parameters the same in both documents', () => {
    for (const [path, name] of [
      ['/api/v1/items/{key}', 'key'],
      ['/api/v1/ah/{market}/{item}', 'item'],
      ['/api/v1/ah/{market}/{item}/candles', 'item'],
    ]) {
      const param = (doc: typeof full) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
      expect(param(subset), path).toEqual(param(full));
      expect(param(full).type, path).toBe('integer');
    }
    expect(subset.components.schemas.ItemKey).toEqual(full.paths['/api/v1/items/{key}'].get.parameters[0].schema);
    // The key rules JSON Schema can state: item part not 0, v not 65536.
    const key = subset.components.schemas.ItemKey;
    expect([1, 2 ** 31 + 1, 2 ** 53 - 1].map((k) => valid(key, k))).toEqual([true, true, true]);
    expect([0, 2 ** 31, 2 ** 47 + 5, 2 ** 53].map((k) => valid(key, k))).toEqual([false, false, false, false]);
  });

  it('states the rules the routes enforce, so a body valid by the document is one the route parses', () => {
    const cases: Array<[string, string, { safeParse(v: unknown): { success: boolean } }, unknown[]]> = [
      ['/api/v1/devices/pair', 'post', PairBody, [{ name: 'x'.repeat(100) }, { name: 'x'.repeat(101) }, { name: '😀'.repeat(100) }, { name: null }, {}]],
      ['/api/v1/market/watch', 'put', WatchBody, [{ items: [1, 2, 3] }, { items: [1, 2, 1] }, { items: [2 ** 31] }]],
      [
        '/api/v1/market/alerts',
        'post',
        AlertInput,
        [
          { market: 'forever.normal.alliance.us', item: 1, kind: 'below', value: 5 },
          { market: 'forever.normal.alliance.us', item: 0, kind: 'deal', value: 20 },
          { market: 'forever.normal.alliance.us', item: 0, kind: 'below', value: 5 },
          { market: 'forever.normal.alliance.us', item: 1, kind: 'fall', value: 100 },
          { market: 'forever.normal.alliance.us', item: 1, kind: 'rise', value: 1000 },
          { market: 'forever.normal.alliance.us', item: 1, kind: 'below', value: 5, name: 'n'.repeat(81) },
          { market: 'forever.normal.alliance.us', item: 1, kind: 'below', value: 5, note: '😀'.repeat(200) },
          { market: 'forever.normal.alliance.us', item: 2 ** 31, kind: 'below', value: 5 },
        ],
      ],
      [
        '/api/v1/market/boards',
        'put',
        BoardsDocument,
        [
          { dashboards: [{ id: 'a', name: 'x'.repeat(60), widgets: [] }], screens: [] },
          { dashboards: [{ id: 'a', name: '', widgets: [] }], screens: [] },
          { dashboards: [{ id: 'a', name: 'x'.repeat(61), widgets: [] }], screens: [] },
        ],
      ],
      [
        '/api/v1/items/seen',
        'post',
        CatalogueBody,
        [
          { items: [[1, 'Sword', 1, 0, 0]] },
          { items: [[1, '   ', 1, 0, 0]] },
          { items: [[1, 'a\u202eb', 1, 0, 0]] },
          { items: [[1, 'x'.repeat(201), 1, 0, 0]] },
        ],
      ],
    ];
    for (const [path, method, schema, bodies] of cases)
      for (const b of bodies) expect(valid(body(path, method), b), `${method} ${path} ${JSON.stringify(b).slice(0, 80)}`).toBe(schema.safeParse(b).success);
  });

  it("states the push endpoint rule of the deployment: a push service's https URL, loopback only where allowed", () => {
    const keys = { p256dh: `BA${'A'.repeat(85)}`, auth: 'A'.repeat(22) };
    const endpoints = [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/x',
      'https://db5p.notify.windows.com/w/?token=1',
      'https://evil.example/push',
      'http://fcm.googleapis.com/x',
      'https://fcm.googleapis.com:8443/x',
      'https://user@fcm.googleapis.com/x',
      'http://127.0.0.1:9000/push',
      'http://localhost/push',
    ];
    for (const loopback of [false, true]) {
      const rule = { hosts: [...PUSH_SERVICE_HOSTS], loopback };
      // biome-ignore lint/suspicious/noExplicitAny: as above
      const doc = fullOpenApiDocument(BASE, rule) as any;
      const schema = doc.paths['/api/v1/push/subscription'].put.requestBody.content['application/json'].schema;
      const parse = putSubscriptionBody(rule);
      for (const endpoint of endpoints) {
        const b = { subscription: { endpoint, keys } };
        expect(new SchemaChecker(doc).check(schema, b).length === 0, `${endpoint} loopback ${loopback}`).toBe(parse.safeParse(b).success);
      }
    }
  });
});
