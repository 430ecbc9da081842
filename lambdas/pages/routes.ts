import type { RouteTable } from '../../shared/http/handler';

/** Route key (as in lib/topology.ts) → route. */
export const routes: RouteTable = {};
