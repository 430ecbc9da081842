import { httpHandler } from '../../shared/http/handler';
import type { ServicesOf } from '../../shared/services';
import { routes } from './routes';

/** The root of `upload`, on the ports its manifest access grants: accounts, uploads, catalogue, market, the files bucket, the merge queues. */
export function createHandler(svc: ServicesOf<'upload'>) {
  return httpHandler('upload', routes, svc);
}
