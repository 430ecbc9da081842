import { gunzipSync } from 'node:zlib';
import { LimitError, type ValidationCode, ValidationError } from '../errors';

/** 32 MiB: the spec's limit for book bodies, compressed and decompressed alike. */
export const BODY_LIMIT = 32 * 1024 * 1024;

/**
 * Spec Uploads: a body of at most `limit` bytes, gunzipped when `Content-Encoding: gzip`, whose decompressed
 * size is capped at `limit` too (413 `too_large`). The cap is enforced by zlib while inflating, so a gzip bomb
 * or a lying size trailer never allocates more than `limit`. A corrupt gzip stream or an unsupported encoding
 * is the route's malformed-body code (`bad_book` for books, `bad_request` elsewhere).
 */
export function readBody(raw: Buffer, contentEncoding?: string, limit = BODY_LIMIT, malformed: ValidationCode = 'bad_request'): Buffer {
  if (raw.length > limit) throw new LimitError('too_large', `body above ${limit} bytes`);
  const encoding = contentEncoding?.trim().toLowerCase() ?? '';
  if (encoding === '' || encoding === 'identity') return raw;
  if (encoding !== 'gzip' && encoding !== 'x-gzip') throw new ValidationError(malformed, `unsupported content encoding ${encoding}`);
  try {
    return gunzipSync(raw, { maxOutputLength: limit });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new LimitError('too_large', `decompressed body above ${limit} bytes`);
    throw new ValidationError(malformed, 'body is not valid gzip');
  }
}
