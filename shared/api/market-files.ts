/**
 * GET /api/v1/ah/:market/files (api.md Market reads; files-and-live Endpoints): per role, where the market's
 * files are: `{market, cdnBase, snapshot, d1, sealed, live?, caps, books?, now}`. `live` needs `prices.live`,
 * `books` (last 30 days) needs `books`; `caps` as in `hello` (`{}` for anonymous and free callers).
 * `Cache-Control: private, no-store`, anonymous answers `public, max-age=60`.
 */
import { DAY_MS } from '../clock';
import type { Route } from '../http/handler';
import { json, NO_STORE } from '../http/respond';
import { loadMarketView } from '../live/market-view';
import { type BookRef, filesAnswer } from '../live/messages';

const BOOKS_LISTED_MS = 30 * DAY_MS;

/** GET /api/v1/ah/:market/files. */
export const getMarketFiles: Route = {
  access: { kind: 'public' },
  async handle({ req, svc, principal }) {
    const market = req.params.market;
    const now = svc.clock.now();
    const withBooks = principal.features.includes('books');
    const [view, books] = await Promise.all([
      loadMarketView(svc, market),
      withBooks ? svc.market.books.between(market, now - BOOKS_LISTED_MS, now) : Promise.resolve([]),
    ]);
    const refs: BookRef[] = books.map((b) => ({ at: b.at, complete: b.complete, path: b.path }));
    const audience = { roles: principal.roles, features: principal.features, historyDays: principal.limits.historyDays };
    const body = filesAnswer(view, audience, svc.config.cdnBase, now, withBooks ? refs : null);
    const cacheControl = principal.kind === 'anon' ? 'public, max-age=60' : NO_STORE;
    return json(200, body, { 'cache-control': cacheControl, vary: 'Authorization, Cookie' });
  },
};
