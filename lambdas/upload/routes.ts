import { bookUploadRoutes } from '../../shared/api/book-upload';
import { catalogueRoutes } from '../../shared/api/catalogue-upload';
import type { RouteTable } from '../../shared/http/handler';

/** Every route the manifest (shared/topology.ts) gives `upload`, and no other. */
export const routes = {
  ...bookUploadRoutes,
  ...catalogueRoutes,
} satisfies RouteTable<'upload'>;
