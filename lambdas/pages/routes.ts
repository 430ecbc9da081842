import type { RouteTable } from '../../shared/http/handler';
import { pageRoutes } from '../../shared/pages/routes';

/** Every route the manifest (shared/topology.ts) gives `pages`, and no other. */
export const routes = {
  ...pageRoutes,
} satisfies RouteTable<'pages'>;
