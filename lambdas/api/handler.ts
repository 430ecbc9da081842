import { httpHandler } from '../../shared/http/handler';
import type { ServicesOf } from '../../shared/services';
import { routes } from './routes';

/** The root of `api`, on the ports its manifest access grants: the table's ports, the files and work buckets, the origin secret. */
export function createHandler(svc: ServicesOf<'api'>) {
  return httpHandler('api', routes, svc);
}
