/** POST /api/v1/ah/books (spec Uploads): a desktop app or an API key uploads an order book. */
import type { Route, RoutesOf } from '../http/handler';
import { ok } from '../http/respond';
import { admitBook } from '../upload/admit-book';

/** Answers 200 `{at, credited, reason?}`; the spec's 401 / 403 / 413 / 400 / 409 / 503 come from `admitBook`. */
export const postBook: Route<'upload'> = {
  access: { kind: 'signedIn' },
  outage: 'storage_failed',
  async handle({ req, svc, principal }) {
    return ok(await admitBook(svc, principal, { body: req.body, contentEncoding: req.headers['content-encoding'] }));
  },
};

export const bookUploadRoutes = {
  'POST /api/v1/ah/books': postBook,
} satisfies RoutesOf<'upload'>;
