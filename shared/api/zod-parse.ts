/**
 * zod at the HTTP boundary (issue 12.5): a request body or query is parsed by its route's schema
 * (`<route>.schemas.ts` beside the route) and a failure becomes the spec's 400 code for that route, with a
 * short message naming the first broken rule. Pure.
 */
import type { z } from 'zod';
import { type ValidationCode, ValidationError } from '../errors';

/** The first issue as `where: what` (`body` when the value itself is wrong). */
export function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.length ? issue.path.map(String).join('.') : '';
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** `value` parsed by `schema`, or a ValidationError with the route's `code` (400 `bad_request`, `bad_query`, ...). */
export function parseAs<S extends z.ZodType>(schema: S, value: unknown, code: ValidationCode): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new ValidationError(code, issueText(r.error));
}
