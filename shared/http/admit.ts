/**
 * Admission of a caller to a route, in the order DESIGN.md fixes: authentication (401) → rate limit (429)
 * → origin and features (403). It reads the request (path, method, Origin, query), so it lives in the HTTP
 * layer; the checks of a principal it shares with route code are shared/auth/gate.ts.
 */
import { authenticate } from '../auth/authenticate';
import { countCall, requireFeature, requireSignedIn, requireUnderLimit } from '../auth/gate';
import { isAllowedOrigin } from '../auth/origins';
import type { Principal } from '../auth/principal';
import type { Feature } from '../domain/roles';
import { ForbiddenError } from '../errors';
import type { Services } from '../services';
import type { Access, QueryFeatures } from './access';
import type { Metered } from './rate-limit-headers';
import type { ApiRequest } from './types';

export { authenticate };

const API_PREFIX = '/api/v1/';

/** Reads are GET and HEAD; everything else is a write (for `api.read`, origin checks and `signedInOnly`). */
export const isRead = (method: string): boolean => method === 'GET' || method === 'HEAD';

/**
 * Admits a caller to a route and returns its principal, or throws the spec's 401 / 429 / 403. `metered` hears
 * of a counted request (before any refusal after it), so every answer to it can carry the RateLimit fields.
 */
export async function admit(
  req: ApiRequest,
  access: Access,
  svc: Pick<Services, 'config' | 'clock' | 'identity' | 'log'>,
  metered?: (m: Metered) => void,
): Promise<Principal> {
  const principal = await authenticate(req, svc);
  const read = isRead(req.method);
  // Every request under /api/v1/ counts, even one about to be refused for want of a sign-in.
  let count = 0;
  if (req.path.startsWith(API_PREFIX)) {
    const now = svc.clock.now();
    // Counted in the function from places reserved in batches in the shared counter (rate-meter.ts states the tolerance).
    count = await countCall(svc, principal, now);
    metered?.({ limit: principal.limits.apiPerMinute, count, now });
  }
  if (access.kind !== 'public') requireSignedIn(principal);
  requireUnderLimit(principal, count);
  // A path that is not a route (404 / 405) writes nothing: it answers the same whatever the Origin.
  const writes = !read && !(access.kind === 'public' && access.writesNothing);
  if (principal.kind === 'session' && writes && !isAllowedOrigin(req.headers.origin, svc.config)) {
    throw new ForbiddenError('bad_origin', 'a session write needs an Origin of this deployment');
  }
  if (principal.kind === 'apiKey' && read && !(access.kind === 'public' && access.keyExempt)) requireFeature(principal, 'api.read');
  if (access.kind === 'feature' && !(access.signedInOnly && read)) requireFeature(principal, access.feature);
  if (access.kind === 'public' && access.feature) requireFeature(principal, access.feature);
  if (access.kind === 'public' && access.query) {
    const needed = queryFeature(access.query, req.query);
    if (needed) requireFeature(principal, needed);
  }
  return principal;
}

/** The feature a query value names, if any (own keys only: `res=constructor` names nothing). */
function queryFeature(rule: QueryFeatures, query: Record<string, string>): Feature | undefined {
  const value = query[rule.param] ?? rule.absent;
  return value !== undefined && Object.hasOwn(rule.features, value) ? rule.features[value] : undefined;
}
