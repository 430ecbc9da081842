/**
 * What the generated OpenAPI document (shared/pages/openapi-full.ts) says of a route beyond its manifest entry
 * and its directory line (shared/pages/reference.ts): the zod schemas of its query, body and answer, and
 * the error codes of its own (every `/api/v1/` route also answers 401 for a bad credential and 429).
 */
import type { z } from 'zod';
import type { ErrorCode } from '../errors';
import type { FunctionName, RouteKey } from '../topology';

export interface RouteDoc {
  /** The query: an object of text values (`IntText` and friends parse them). */
  query?: z.ZodObject;
  /** The JSON body the route parses (or describes, for the book's fast path). */
  body?: z.ZodType;
  /** The success answer's JSON schema; absent with `answerType` for pages and stored files. */
  answer?: z.ZodType;
  /** The success answer's media types when not `application/json` (pages: HTML, and Markdown when asked). */
  answerType?: string | readonly string[];
  /** The success status (default 200; 101 is the live route's WebSocket upgrade). */
  status?: 200 | 302 | 101;
  /** The route's own error codes. */
  errors?: readonly ErrorCode[];
  /**
   * Who may call it (its OpenAPI `security`). Absent: anyone, credentials optional (a bad one is 401);
   * `signedIn`: any credential, 401 to anonymous callers; `uploaders`: a device token or an API key (a
   * session is 403 `devices_only`); `sessions`: a website session only (403 `sessions_only`); `none`: no
   * credential is read (pages, the retired route). test/unit/openapi-full.test.ts holds it to the route tables.
   */
  callers?: 'signedIn' | 'uploaders' | 'sessions' | 'none';
  /** API keys need no `api.read` here (public snapshot, item data, icons); other `/api/v1/` reads are 403 without it. */
  keyExempt?: boolean;
  /** A cache may store the 200 (not `no-store`): it carries an `ETag` and a matching `If-None-Match` is answered 304. */
  cached?: boolean;
  /** A large answer is `303 See Other` to the same JSON on the file host (`Location`, body `{url}`). */
  spills?: boolean;
  /** Rules of the request that JSON Schema cannot state (also in the schemas' descriptions): a 400 may come from them. */
  rules?: readonly string[];
}

/** Some of a function's route descriptions, by route key (a key the manifest does not give `F` fails the typecheck). */
export type DocsOf<F extends FunctionName> = { readonly [K in RouteKey<F>]?: RouteDoc };
