/**
 * Issue 24 point 10: a client generated from `/openapi.full.json` with `openapi-typescript` types what the
 * service answers. The types are generated from the document the pages function serves, and a small client
 * written against them (its expectations taken from the spec: the discovery documents are objects, item keys
 * are numbers, 503 `unavailable` and 304 exist, the live route upgrades with 101) must type-check.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { fullOpenApiDocument } from '../../shared/pages/openapi-full';

/** A client of a few routes, written from the spec's words; `@ts-expect-error` lines must be errors too. */
const CLIENT = `
import type { paths } from './api';

type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type Json<O, S extends number> = O extends { responses: infer R } ? (S extends keyof R ? (R[S] extends { content: { 'application/json': infer B } } ? B : never) : never) : never;

export async function itemRecord(base: string, key: Get<'/api/v1/items/{key}'>['parameters']['path']['key']): Promise<Json<Get<'/api/v1/items/{key}'>, 200>> {
  const res = await fetch(base + '/api/v1/items/' + String(key));
  if (res.status === 304) throw new Error('not modified');
  return (await res.json()) as Json<Get<'/api/v1/items/{key}'>, 200>;
}

export async function describeApi(base: string): Promise<string> {
  const doc = (await (await fetch(base + '/openapi.full.json')).json()) as Json<Get<'/openapi.full.json'>, 200>;
  const subset = (await (await fetch(base + '/openapi.json')).json()) as Json<Get<'/openapi.json'>, 200>;
  // @ts-expect-error the document is an object, not a string
  const asText: string = doc;
  void asText;
  return doc.openapi + ' ' + doc.info.title + ' ' + Object.keys(doc.paths).length + ' ' + subset.info.version;
}

type Catalog = Get<'/.well-known/api-catalog'>['responses'][200]['content']['application/linkset+json'];
export const anchors = (c: Catalog): string[] => c.linkset.map((l) => l.anchor);

// Item keys are numbers in both documents' parameters.
export const key: Get<'/api/v1/ah/{market}/{item}'>['parameters']['path']['item'] = 2147483649;
// @ts-expect-error a key is not text
export const textKey: Get<'/api/v1/items/{key}'>['parameters']['path']['key'] = '1';

// The statuses a client must handle.
// A 503 is the service's {error} or, past the gateway's timeout, API Gateway's {message}.
type Own<B> = Extract<B, { error: unknown }>;
export const unavailable: Own<Json<Get<'/api/v1/me'>, 503>>['error'] = 'unavailable';
export const uploadFailures: Array<Own<Json<paths['/api/v1/ah/books']['post'], 503>>['error']> = ['unavailable', 'storage_failed', 'no_storage'];
export const gatewayTimeout: Json<Get<'/api/v1/me'>, 503> = { message: 'Service Unavailable' };
export type NotModified = Get<'/api/v1/items/{key}'>['responses'][304];
export type Upgraded = Get<'/api/v1/live'>['responses'][101];
export type Spilled = Json<Get<'/api/v1/ah/{market}/history'>, 303>['url'];
export type Tag = Get<'/api/v1/items/{key}'>['responses'][200]['headers']['ETag'];
export type Remaining = Get<'/api/v1/me'>['responses'][200]['headers']['RateLimit-Remaining'];
`;

describe('a client generated from /openapi.full.json with openapi-typescript', () => {
  it('type-checks against what the service answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    try {
      const doc = fullOpenApiDocument('https://markets.example.test/');
      const types = astToString(await openapiTS(JSON.parse(JSON.stringify(doc))));
      writeFileSync(join(dir, 'api.ts'), types);
      writeFileSync(join(dir, 'client.ts'), CLIENT);
      const program = ts.createProgram([join(dir, 'client.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        skipLibCheck: true,
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (d) =>
            `${d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        );
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
