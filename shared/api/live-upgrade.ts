/**
 * GET /api/v1/live without a WebSocket upgrade (api.md Live socket; DESIGN check order): 401 anonymous, 403
 * without `live`, 400 `bad_market` for a missing or unknown market, then 426 `upgrade_required`.
 */
import { parseMarket } from '../domain/market';
import { DomainError } from '../errors';
import type { Route } from '../http/handler';

/** GET /api/v1/live without `Upgrade: websocket`. */
export const getLiveWithoutUpgrade: Route = {
  access: { kind: 'feature', feature: 'live' },
  async handle({ req }) {
    parseMarket(req.query.market);
    throw new DomainError('upgrade_required', 'open a WebSocket: send Upgrade: websocket');
  },
};
