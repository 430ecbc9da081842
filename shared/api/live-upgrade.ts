/**
 * GET /api/v1/live without a WebSocket upgrade (api.md Live socket; DESIGN check order): 401 anonymous, 403
 * without `live`, 400 `bad_market` for a missing or unknown market, then 426 `upgrade_required`.
 */
import { DomainError } from '../errors';
import type { Route } from '../http/handler';
import { LiveQuery } from './environment.schemas';
import { parseAs } from './zod-parse';

/** GET /api/v1/live without `Upgrade: websocket`. */
export const getLiveWithoutUpgrade: Route = {
  access: { kind: 'feature', feature: 'live' },
  async handle({ req }) {
    parseAs(LiveQuery, req.query, 'bad_market');
    throw new DomainError('upgrade_required', 'open a WebSocket: send Upgrade: websocket');
  },
};
