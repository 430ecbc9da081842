/**
 * Bounds of a request, applied once where the HTTP layer reads it, so no request reaches a limit of the stores
 * (DynamoDB keys of 2048 / 1024 bytes, items of 400 KB nested at most 32 levels, S3 keys of 1024 bytes).
 * Every bound sits far above anything valid (docs/interpretations.md). A path parameter or query value past
 * its bound cannot name anything: it reaches the route as the empty string, which every route answers as it
 * answers any value naming nothing (400 `bad_market` / `bad_item` / `bad_query` / `bad_build`, 404
 * `unknown_alert` / `unknown_book` / `not_found`, `{deleted: false}`), so the answer keeps the route's check order.
 */
import { LimitError, ValidationError } from '../errors';

/** A path parameter's longest value in UTF-8 bytes: valid ones (market, item key, ids, `at`, icon names, slugs) stay under 300. */
export const PATH_PARAM_MAX_BYTES = 1024;
/** A query value's longest value in UTF-8 bytes: the longest valid one (`items`, 50 keys) is under 900. */
export const QUERY_VALUE_MAX_BYTES = 2048;
/** JSON bodies of the settings, account and push routes (boards store at most 64 KB; the rest a few KB). */
export const JSON_BODY_MAX_BYTES = 1024 * 1024;
/** Nesting of a JSON body: valid documents nest at most 5 levels (boards → dashboards → board → widgets → widget). */
export const JSON_MAX_DEPTH = 20;

/** Ids the service hands out (device, pairing, alert ids): 16..27 characters of the base64url alphabet. */
const SERVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Parameters whose kind has a shape tighter than the general bound; the route decides the rest. */
const PATH_PARAM_SHAPES: Readonly<Record<string, RegExp>> = {
  id: SERVICE_ID,
  pairId: SERVICE_ID,
  at: /^[0-9]{1,16}$/,
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** A value within `maxBytes` and free of control characters, else '' (which names nothing). */
const within = (value: string, maxBytes: number): string => (value.length > maxBytes || utf8Bytes(value) > maxBytes || CONTROL.test(value) ? '' : value);

/** Path parameters as routes see them: each within its bound and of its kind's shape, else ''. */
export function boundPathParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    const v = within(value, PATH_PARAM_MAX_BYTES);
    const shape = Object.hasOwn(PATH_PARAM_SHAPES, name) ? PATH_PARAM_SHAPES[name] : undefined;
    out[name] = shape && !shape.test(v) ? '' : v;
  }
  return out;
}

/** Query values as routes see them: each within its bound, else ''. */
export function boundQuery(query: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) out[name] = within(value, QUERY_VALUE_MAX_BYTES);
  return out;
}

/**
 * The deepest nesting of a JSON text, counted without parsing (a string's brackets do not count); stops
 * counting once past `limit`. Linear in the text and free of recursion, so any input is cheap.
 */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}

/**
 * A JSON body within the bounds: above `JSON_BODY_MAX_BYTES` 413 `too_large`; not JSON or nested deeper than
 * `JSON_MAX_DEPTH` 400 `bad_request`. `empty` is what an empty body stands for (absent: an empty body is not JSON).
 */
export function jsonBody(body: Buffer, opts: { empty?: unknown } = {}): unknown {
  if (body.length > JSON_BODY_MAX_BYTES) throw new LimitError('too_large', `the body is above ${JSON_BODY_MAX_BYTES} bytes`);
  if (body.length === 0 && 'empty' in opts) return opts.empty;
  const text = body.toString('utf8');
  if (jsonDepth(text, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) throw new ValidationError('bad_request', `the body nests deeper than ${JSON_MAX_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('bad_request', 'the body must be JSON');
  }
}
