/**
 * Issue 24 point 10: the integration suite's clients hold every answer to the OpenAPI documents
 * (test/support/openapi-check.ts through the fetch of test/support/openapi-fetch.ts). The checker itself must
 * refuse what the issue names: an unknown status, an invalid body, an undeclared header, a success the
 * operation's security forbids, and a 400 to a request the document allows; and accept a described answer.
 */
import { describe, expect, it } from 'vitest';
import { SchemaChecker } from '../support/json-schema';
import { checkExchange, type Exchange } from '../support/openapi-check';

const BASE = 'http://127.0.0.1:4567';
const JSON_TYPE = 'application/json; charset=utf-8';
const NOW = 1_790_000_000_000;

const exchange = (method: string, path: string, status: number, body: unknown, extra: Partial<Exchange> = {}): Exchange => ({
  method,
  url: new URL(`${BASE}${path}`),
  requestHeaders: new Headers(),
  status,
  responseHeaders: new Headers({
    'content-type': JSON_TYPE,
    'cache-control': 'private, no-store',
    'ratelimit-limit': '60',
    'ratelimit-remaining': '59',
    'ratelimit-reset': '30',
  }),
  body: typeof body === 'string' ? body : JSON.stringify(body),
  ...extra,
});
const me = { user: null, roles: ['anon'], features: [], limits: { apiPerMinute: 60 }, contributor: { until: null, scans7d: 0 }, now: NOW };

describe('the OpenAPI answer checker of the test clients', () => {
  it('accepts an answer the document describes', () => {
    expect(checkExchange(exchange('GET', '/api/v1/me', 200, me))).toEqual([]);
    expect(checkExchange(exchange('GET', '/api/v1/me', 503, { error: 'unavailable', message: 'try again' }))).toEqual([]);
    expect(checkExchange(exchange('GET', '/no/such/path', 404, { error: 'not_found' }))).toEqual([]);
  });

  it('refuses an undocumented status, an invalid body and an error code the status does not have', () => {
    expect(checkExchange(exchange('GET', '/api/v1/me', 500, { error: 'internal' })).join('\n')).toMatch(/status 500 is not documented/);
    expect(checkExchange(exchange('GET', '/api/v1/me', 200, { ...me, now: 'soon' })).join('\n')).toMatch(/body\/now is string, not integer/);
    expect(checkExchange(exchange('GET', '/api/v1/me', 200, { ...me, user: undefined })).join('\n')).toMatch(/lacks the required property user/);
    expect(checkExchange(exchange('GET', '/api/v1/me', 503, { error: 'storage_failed' })).join('\n')).toMatch(/is not one of/);
  });

  it('refuses a header the answer does not declare, or a declared one of the wrong form', () => {
    const x = exchange('GET', '/api/v1/me', 200, me);
    x.responseHeaders.set('x-debug', '1');
    expect(checkExchange(x).join('\n')).toMatch(/header x-debug is sent but not declared/);
    const y = exchange('GET', '/api/v1/me', 200, me);
    y.responseHeaders.set('ratelimit-reset', '600');
    expect(checkExchange(y).join('\n')).toMatch(/header ratelimit-reset "600" 600 is above 60/);
  });

  it("refuses a success the operation's security forbids and an anonymous 401 from an open operation", () => {
    const session = exchange(
      'POST',
      '/api/v1/ah/books',
      200,
      { at: NOW, credited: false },
      { requestHeaders: new Headers({ authorization: 'Bearer eyJhbGciOi.x.y' }) },
    );
    expect(checkExchange(session).join('\n')).toMatch(/succeeded for sessionToken/);
    const device = exchange(
      'POST',
      '/api/v1/ah/books',
      200,
      { at: NOW, credited: false },
      { requestHeaders: new Headers({ authorization: `Bearer svc_dev_${'a'.repeat(43)}` }) },
    );
    expect(checkExchange(device).filter((p) => p.includes('security'))).toEqual([]);
    expect(checkExchange(exchange('GET', '/api/v1/config', 401, { error: 'unauthenticated' })).join('\n')).toMatch(/refused an anonymous caller/);
  });

  it('refuses a 400 to a request the document allows, and accepts one to a request it refuses', () => {
    const put = (items: unknown) =>
      exchange(
        'PUT',
        '/api/v1/market/watch',
        400,
        { error: 'bad_request' },
        {
          requestHeaders: new Headers({ 'content-type': 'application/json', authorization: 'Bearer ak_x' }),
          requestBody: JSON.stringify({ items }),
        },
      );
    expect(checkExchange(put([1, 2])).join('\n')).toMatch(/refused with 400 a request the document allows/);
    expect(checkExchange(put([1, 1]))).toEqual([]);
  });

  it('knows the keywords the documents use and refuses one it does not know', () => {
    const c = new SchemaChecker({});
    expect(c.check({ type: 'array', prefixItems: [{ type: 'integer' }], items: false }, [1, 2]).length).toBe(1);
    expect(c.check({ type: 'integer', not: { multipleOf: 2 } }, 4).length).toBe(1);
    expect(c.check({ type: 'string', maxLength: 2 }, '😀😀')).toEqual([]);
    expect(() => c.check({ type: 'string', format: 'email', if: {} }, 'x')).toThrow(/does not know the keyword if/);
  });
});
