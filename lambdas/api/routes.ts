import { getConfig, retiredScans } from '../../shared/api/environment';
import type { RouteTable } from '../../shared/http/handler';

/** Route key (as in lib/topology.ts) → route. */
export const routes: RouteTable = {
  'GET /api/v1/config': getConfig,
  'ANY /api/v1/ah/scans': retiredScans,
};
