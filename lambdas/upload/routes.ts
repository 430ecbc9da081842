import { bookUploadRoutes } from '../../shared/api/book-upload';
import { catalogueRoutes } from '../../shared/api/catalogue-upload';
import type { RouteTable } from '../../shared/http/handler';

/** Route key (as in lib/topology.ts) → route. */
export const routes: RouteTable = {
  ...bookUploadRoutes,
  ...catalogueRoutes,
};
