import { accountRoutes } from '../../shared/api/account';
import { getConfig, retiredScans } from '../../shared/api/environment';
import { itemRoutes } from '../../shared/api/items';
import { pushRoutes } from '../../shared/api/push';
import { settingsRoutes } from '../../shared/api/settings';
import { updateRoutes } from '../../shared/api/updates';
import type { RouteTable } from '../../shared/http/handler';

/** Route key (as in lib/topology.ts) → route. */
export const routes: RouteTable = {
  'GET /api/v1/config': getConfig,
  'ANY /api/v1/ah/scans': retiredScans,
  ...accountRoutes,
  ...itemRoutes,
  ...updateRoutes,
  ...settingsRoutes,
  ...pushRoutes,
};
