/**
 * Entity tags and `If-None-Match` (RFC 9110 8.8.3, 13.1.2, 15.4.5) for answers a cache may store: hourly
 * answers, published-file-backed answers (snapshot, item files, books), item pages and discovery documents.
 * A tag is a hash of the bytes as sent together with their type and encoding, so HTML and Markdown, gzip and
 * plain each get their own tag, and a tag changes exactly when the bytes do. Answers that forbid storing
 * (`no-store`: live and premium answers, errors) get no tag and are never answered 304.
 */
import { createHash } from 'node:crypto';
import type { HttpResult } from './types';

/** Fields a 304 repeats from the 200 it stands for (RFC 9110 15.4.5); representation metadata is left out. */
const DROPPED_ON_304 = new Set(['content-type', 'content-encoding', 'content-length']);

/** A strong tag: `"` + 27 base64url characters (162 bits of SHA-256) + `"`, over type, encoding and bytes. */
export function strongTag(contentType: string, contentEncoding: string, body: string, base64: boolean): string {
  // A base64 body is hashed as its text: one-to-one with the bytes, and no copy of a multi-megabyte answer.
  const h = createHash('sha256')
    .update(`${contentType}\n${contentEncoding}\n${base64 ? 'b' : 't'}\n`)
    .update(body);
  return `"${h.digest('base64url').slice(0, 27)}"`;
}

/** A weak tag (`W/"…"`) over text whose listed parts are insignificant (e.g. a page's `now`). */
export function weakTag(contentType: string, text: string): string {
  return `W/${strongTag(contentType, 'weak', text, false)}`;
}

/** The opaque part of an entity tag (`W/"x"` and `"x"` both give `"x"`), or null when it is no tag. */
const opaque = (tag: string): string | null => {
  const m = /^(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/.exec(tag.trim());
  return m ? m[1] : null;
};

/**
 * Whether `If-None-Match` matches `tag` by weak comparison (RFC 9110 13.1.2): `*` matches any current
 * representation; otherwise any listed tag whose opaque part equals the tag's, `W/` prefixes ignored.
 * Malformed members are skipped, so a broken header never matches.
 */
export function noneMatchHits(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  if (value === '*') return true;
  const mine = opaque(tag);
  if (mine === null) return false;
  // Members are `W/"…"` or `"…"`; a comma inside quotes belongs to the tag, so match tags rather than split.
  for (const m of value.matchAll(/(?:W\/)?"[^"]*"/g)) if (opaque(m[0]) === mine) return true;
  return false;
}

/** Whether an answer may be stored by a cache and so carries a tag: a 200 whose Cache-Control allows storing. */
function taggable(result: HttpResult): boolean {
  if ((result.statusCode ?? 200) !== 200 || typeof result.body !== 'string') return false;
  const cc = String(result.headers?.['cache-control'] ?? '').toLowerCase();
  return cc !== '' && !/(^|[\s,])no-store([\s,]|$)/.test(cc);
}

/**
 * Adds the answer's `ETag` (a route's own tag is kept) and answers `304 Not Modified` when a GET or HEAD
 * carries a matching `If-None-Match`: no body, the 200's headers minus its representation metadata.
 */
export function withValidator(method: string, ifNoneMatch: string | undefined, result: HttpResult): HttpResult {
  if (!taggable(result)) return result;
  const headers = { ...result.headers };
  const own = headers.etag;
  const tag =
    typeof own === 'string' && own
      ? own
      : strongTag(String(headers['content-type'] ?? ''), String(headers['content-encoding'] ?? ''), result.body as string, result.isBase64Encoded === true);
  headers.etag = tag;
  if ((method === 'GET' || method === 'HEAD') && noneMatchHits(ifNoneMatch, tag)) {
    const kept = Object.fromEntries(Object.entries(headers).filter(([k]) => !DROPPED_ON_304.has(k.toLowerCase())));
    return { statusCode: 304, headers: kept, body: '' };
  }
  return { ...result, headers };
}
