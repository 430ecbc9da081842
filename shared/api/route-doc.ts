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
  /** The success status (default 200). */
  status?: 200 | 302;
  /** The route's own error codes. */
  errors?: readonly ErrorCode[];
}

/** Some of a function's route descriptions, by route key (a key the manifest does not give `F` fails the typecheck). */
export type DocsOf<F extends FunctionName> = { readonly [K in RouteKey<F>]?: RouteDoc };
