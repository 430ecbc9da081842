import { accountRoutes } from '../../shared/api/account';
import { postAdminSnapshot } from '../../shared/api/admin-snapshot';
import { getConfig, retiredScans } from '../../shared/api/environment';
import { itemRoutes } from '../../shared/api/items';
import { getLiveWithoutUpgrade } from '../../shared/api/live-upgrade';
import { marketBookRoutes } from '../../shared/api/market-books';
import { getMarketFiles } from '../../shared/api/market-files';
import { marketReadRoutes } from '../../shared/api/market-reads';
import { pushRoutes } from '../../shared/api/push';
import { settingsRoutes } from '../../shared/api/settings';
import { updateRoutes } from '../../shared/api/updates';
import type { RouteTable } from '../../shared/http/handler';

/** Every route the manifest (shared/topology.ts) gives `api`, and no other. */
export const routes = {
  'GET /api/v1/config': getConfig,
  'ANY /api/v1/ah/scans': retiredScans,
  ...accountRoutes,
  ...itemRoutes,
  ...marketReadRoutes,
  ...marketBookRoutes,
  ...updateRoutes,
  ...settingsRoutes,
  ...pushRoutes,
  'GET /api/v1/ah/{market}/files': getMarketFiles,
  'GET /api/v1/live': getLiveWithoutUpgrade,
  'POST /api/v1/admin/snapshot': postAdminSnapshot,
} satisfies RouteTable<'api'>;
