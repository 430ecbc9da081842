import { httpHandler } from '../../shared/http/handler';
import type { ServicesOf } from '../../shared/services';
import { routes } from './routes';

/** The root of `pages`, on the ports its manifest access grants: accounts (admission), catalogue, market, the files bucket, the origin secret. */
export function createHandler(svc: ServicesOf<'pages'>) {
  return httpHandler('pages', routes, svc);
}
