/**
 * Per-account settings (spec: "Settings (per account)"): watchlist, alerts and boards. Reading needs only a
 * signed-in caller; every write needs the feature (403 `forbidden`); above the role's limit: 409 `too_many`.
 */
import { randomBytes } from 'node:crypto';
import { requireSignedIn } from '../auth/gate';
import { newAlert, replaceAlert } from '../domain/alerts';
import { checkBoardsLimits } from '../domain/boards';
import { ConflictError, type DomainError, NotFoundError } from '../errors';
import { jsonBody as boundedJson } from '../http/bounds';
import type { Route, RoutesOf } from '../http/handler';
import { ok } from '../http/respond';
import type { ApiRequest } from '../http/types';
import { AlertInput, BoardsDocument, WatchBody } from './settings.schemas';
import { parseAs } from './zod-parse';

/** The spec caps every role's watchlist at 200, whatever the role table says. */
const WATCHLIST_CAP = 200;
const ALERT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The body as JSON within the shared bounds (bounds.ts): 413 `too_large`, 400 `bad_request`. */
export const jsonBody = (req: ApiRequest): unknown => boundedJson(req.body);

const tooMany = (limit: number, what: string): DomainError => new ConflictError('too_many', `at most ${limit} ${what}`, { limit });

/** Spec watchlist body `{items}`: an ordered list of distinct, valid item keys (settings.schemas.ts). */
export const parseWatchItems = (raw: unknown): number[] => parseAs(WatchBody, raw, 'bad_request').items;

/** GET /api/v1/market/watch: the account's watchlist. */
export const getWatch: Route = {
  access: { kind: 'feature', feature: 'watchlist', signedInOnly: true },
  async handle({ svc, principal: p }) {
    requireSignedIn(p);
    return ok({ items: await svc.settings.getWatchlist(p.userId) });
  },
};

/** PUT /api/v1/market/watch {items}: replaces the watchlist; 400 for duplicates or a bad key; 409 above the limit. */
export const putWatch: Route = {
  access: { kind: 'feature', feature: 'watchlist', signedInOnly: true },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    const items = parseWatchItems(jsonBody(req));
    const limit = Math.min(p.limits.watchlist, WATCHLIST_CAP);
    if (items.length > limit) throw tooMany(limit, 'watchlist items');
    await svc.settings.putWatchlist(p.userId, items, svc.clock.now());
    return ok({ items });
  },
};

/** GET /api/v1/market/alerts: `{alerts, now}`, newest first (also while the account lacks `alerts`). */
export const getAlerts: Route = {
  access: { kind: 'feature', feature: 'alerts', signedInOnly: true },
  async handle({ svc, principal: p }) {
    requireSignedIn(p);
    const stored = await svc.settings.listAccountAlerts(p.userId);
    return ok({ alerts: stored.map((s) => s.alert), now: svc.clock.now() });
  },
};

/** POST /api/v1/market/alerts: creates an armed alert; 409 `too_many` at `limit(alerts)`. */
export const postAlert: Route = {
  access: { kind: 'feature', feature: 'alerts' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    const input = parseAs(AlertInput, jsonBody(req), 'bad_request');
    const alert = newAlert(input, randomBytes(12).toString('base64url'), svc.clock.now());
    if (!(await svc.settings.createAlert(p.userId, alert, p.limits.alerts))) throw tooMany(p.limits.alerts, 'alerts');
    return ok({ alert });
  },
};

/** PUT /api/v1/market/alerts/:id: replaces the alert (armed again, deal set forgotten, `last` kept); 404 `unknown_alert`. */
export const putAlert: Route = {
  access: { kind: 'feature', feature: 'alerts' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    const input = parseAs(AlertInput, jsonBody(req), 'bad_request');
    const id = req.params.id ?? '';
    const old = ALERT_ID.test(id) ? await svc.settings.getAccountAlert(p.userId, id) : null;
    const alert = old ? await svc.settings.replaceStoredAlert(old, replaceAlert(old.alert, input)) : null;
    if (!alert) throw new NotFoundError('unknown_alert', 'no such alert');
    return ok({ alert });
  },
};

/** DELETE /api/v1/market/alerts/:id: `{deleted}`. */
export const deleteAlert: Route = {
  access: { kind: 'feature', feature: 'alerts' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    const id = req.params.id ?? '';
    const old = ALERT_ID.test(id) ? await svc.settings.getAccountAlert(p.userId, id) : null;
    return ok({ deleted: old ? await svc.settings.deleteStoredAlert(old) : false });
  },
};

/** GET /api/v1/market/boards: the boards document, empty lists until the first PUT. */
export const getBoardsRoute: Route = {
  access: { kind: 'feature', feature: 'boards', signedInOnly: true },
  async handle({ svc, principal: p }) {
    requireSignedIn(p);
    return ok(await svc.settings.getBoards(p.userId));
  },
};

/** PUT /api/v1/market/boards: stores the document and answers it; 400, 409 `too_many`, 413 `too_large`. */
export const putBoardsRoute: Route = {
  access: { kind: 'feature', feature: 'boards', signedInOnly: true },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    // The schema holds the shape (400); the domain then checks the counts (409) and the stored size (413).
    const doc = checkBoardsLimits(parseAs(BoardsDocument, jsonBody(req), 'bad_request'));
    await svc.settings.putBoards(p.userId, doc, svc.clock.now());
    return ok(doc);
  },
};

/** The settings routes by route key (shared/topology.ts). */
export const settingsRoutes = {
  'GET /api/v1/market/watch': getWatch,
  'PUT /api/v1/market/watch': putWatch,
  'GET /api/v1/market/alerts': getAlerts,
  'POST /api/v1/market/alerts': postAlert,
  'PUT /api/v1/market/alerts/{id}': putAlert,
  'DELETE /api/v1/market/alerts/{id}': deleteAlert,
  'GET /api/v1/market/boards': getBoardsRoute,
  'PUT /api/v1/market/boards': putBoardsRoute,
} satisfies RoutesOf<'api'>;
