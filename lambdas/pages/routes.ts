import type { RouteTable } from '../../shared/http/handler';
import { pageRoutes } from '../../shared/pages/routes';

/** Route key (as in lib/topology.ts) → route. */
export const routes: RouteTable = {
  ...pageRoutes,
};
