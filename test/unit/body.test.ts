import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../shared/errors';
import { BODY_LIMIT, readBody } from '../../shared/upload/body';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return 'ok';
};

describe('readBody', () => {
  it('returns an unencoded body as is', () => {
    const raw = Buffer.from('{"a":1}');
    expect(readBody(raw)).toBe(raw);
    expect(readBody(raw, 'identity')).toBe(raw);
  });

  it('gunzips a gzip body, whatever the header case', () => {
    const text = JSON.stringify({ entries: Array.from({ length: 1000 }, (_, i) => [i, 1, 1, 1, 1]) });
    expect(readBody(gzipSync(text), 'gzip').toString()).toBe(text);
    expect(readBody(gzipSync(text), ' GZIP ').toString()).toBe(text);
  });

  it('answers too_large for a raw body above the limit', () => {
    expect(codeOf(() => readBody(Buffer.alloc(1001), undefined, 1000))).toBe('too_large');
    expect(codeOf(() => readBody(Buffer.alloc(1000), undefined, 1000))).toBe('ok');
  });

  it('answers too_large for a gzip body that inflates above the limit, without trusting its size field', () => {
    const bomb = gzipSync(Buffer.alloc(1_000_000));
    // The gzip trailer's ISIZE claims 16 bytes; the cap must still hold while inflating.
    bomb.writeUInt32LE(16, bomb.length - 4);
    expect(codeOf(() => readBody(bomb, 'gzip', 10_000))).toBe('too_large');
  });

  it('accepts a gzip body that inflates to exactly the limit', () => {
    expect(readBody(gzipSync(Buffer.alloc(10_000)), 'gzip', 10_000)).toHaveLength(10_000);
  });

  it('answers the route code for a corrupt gzip body or an unsupported encoding', () => {
    expect(codeOf(() => readBody(Buffer.from('not gzip'), 'gzip'))).toBe('bad_request');
    expect(codeOf(() => readBody(Buffer.from('not gzip'), 'gzip', BODY_LIMIT, 'bad_book'))).toBe('bad_book');
    expect(codeOf(() => readBody(Buffer.from('x'), 'br', BODY_LIMIT, 'bad_book'))).toBe('bad_book');
  });

  it('uses 32 MiB as the default limit', () => {
    expect(BODY_LIMIT).toBe(32 * 1024 * 1024);
  });
});
