import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../shared/errors';
import {
  boundPathParams,
  boundQuery,
  JSON_BODY_MAX_BYTES,
  JSON_MAX_DEPTH,
  jsonBody,
  jsonDepth,
  PATH_PARAM_MAX_BYTES,
  QUERY_VALUE_MAX_BYTES,
} from '../../shared/http/bounds';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return 'ok';
};

const nested = (depth: number): string => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

describe('request bounds', () => {
  it('passes valid path parameters through unchanged', () => {
    const valid = {
      market: 'forever.normal.alliance.us',
      item: '9007199254740991',
      id: 'dev_AbCdEfGhIjKlMnOp',
      pairId: 'pair_0123456789abcdefABCDEF',
      at: '1793577601000',
      key: '123.md',
      icon: 'inv_misc_herb_01.webp',
      slug: 'linen-cloth',
    };
    expect(boundPathParams(valid)).toEqual(valid);
  });

  it('turns an overlong, control-character or misshapen path parameter into the empty string, which names nothing', () => {
    for (const n of [PATH_PARAM_MAX_BYTES + 1, 5000, 100_000]) {
      expect(boundPathParams({ item: '1'.repeat(n), slug: 'a'.repeat(n) })).toEqual({ item: '', slug: '' });
    }
    // 1024 bytes of a 4-byte character are 256 characters: bytes decide.
    expect(boundPathParams({ slug: '😀'.repeat(257) }).slug).toBe('');
    expect(boundPathParams({ slug: '😀'.repeat(256) }).slug).toBe('😀'.repeat(256));
    expect(boundPathParams({ market: 'forever\u0000', id: 'a\nb' })).toEqual({ market: '', id: '' });
    expect(boundPathParams({ id: 'x'.repeat(65), pairId: 'pair/../x', at: '12a' })).toEqual({ id: '', pairId: '', at: '' });
  });

  it('bounds query values the same way and keeps names', () => {
    expect(boundQuery({ from: '123', items: '1,2,3' })).toEqual({ from: '123', items: '1,2,3' });
    expect(boundQuery({ from: '1'.repeat(QUERY_VALUE_MAX_BYTES + 1), foo: '\u0000' })).toEqual({ from: '', foo: '' });
  });

  it('measures JSON nesting without parsing, ignoring brackets in strings', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('["[[[[", "\\"[[["]')).toBe(1);
    expect(jsonDepth('['.repeat(1_000_000), 50)).toBe(51);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
        const depthOf = (x: unknown): number => (x !== null && typeof x === 'object' ? 1 + Math.max(0, ...Object.values(x as object).map(depthOf)) : 0);
        expect(jsonDepth(JSON.stringify(v))).toBe(depthOf(v));
      }),
    );
  });

  it('parses JSON bodies within the bounds and answers 413 / 400 past them', () => {
    expect(jsonBody(Buffer.from(nested(JSON_MAX_DEPTH)))).toBeTruthy();
    expect(codeOf(() => jsonBody(Buffer.from(nested(JSON_MAX_DEPTH + 2))))).toBe('bad_request');
    expect(codeOf(() => jsonBody(Buffer.from(nested(100_000))))).toBe('bad_request');
    expect(codeOf(() => jsonBody(Buffer.alloc(JSON_BODY_MAX_BYTES + 1, 0x20)))).toBe('too_large');
    expect(codeOf(() => jsonBody(Buffer.from('{')))).toBe('bad_request');
    expect(codeOf(() => jsonBody(Buffer.alloc(0)))).toBe('bad_request');
    expect(jsonBody(Buffer.alloc(0), { empty: {} })).toEqual({});
  });
});
