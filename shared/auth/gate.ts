/**
 * Admission of a caller to a route, in the order DESIGN.md fixes: authentication (401) → rate limit (429)
 * → origin and features (403). Route code adds its own later checks (`sessions_only`, `devices_only`, …).
 */
import type { Feature } from '../domain/roles';
import { ForbiddenError, LimitError, UnauthenticatedError } from '../errors';
import type { Access, QueryFeatures } from '../http/handler';
import type { Metered } from '../http/rate-limit-headers';
import type { ApiRequest } from '../http/types';
import type { Services } from '../services';
import { authenticate } from './authenticate';
import { isAllowedOrigin } from './origins';
import type { Principal } from './principal';
import { rateMeter } from './rate-meter';

export { authenticate } from './authenticate';

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

/**
 * Counts one request of the caller against its `apiPerMinute`; answers the count it is judged by. Counted in
 * the function, the shared counter written in batches (rate-meter.ts states the tolerance).
 */
export const countCall = (svc: Pick<Services, 'identity'>, p: Principal, now: number): Promise<number> =>
  rateMeter(svc.identity).count(p.callerId, now, p.limits.apiPerMinute);

/** 429 `rate_limited` (Retry-After: 60) when the count is past the caller's `apiPerMinute`. */
export function requireUnderLimit(p: Principal, count: number): void {
  if (count > p.limits.apiPerMinute) throw new LimitError('rate_limited', `more than ${p.limits.apiPerMinute} requests a minute`, {}, 60);
}

/** The feature a query value names, if any (own keys only: `res=constructor` names nothing). */
function queryFeature(rule: QueryFeatures, query: Record<string, string>): Feature | undefined {
  const value = query[rule.param] ?? rule.absent;
  return value !== undefined && Object.hasOwn(rule.features, value) ? rule.features[value] : undefined;
}

/** 401 `unauthenticated` for anonymous callers. */
export function requireSignedIn(p: Principal): asserts p is Principal & { userId: string } {
  if (p.kind === 'anon' || !p.userId) throw new UnauthenticatedError('sign in first');
}

/** 403 `forbidden` with `feature` when the caller lacks it. */
export function requireFeature(p: Principal, f: Feature): void {
  if (!p.features.includes(f)) throw new ForbiddenError('forbidden', `needs the ${f} feature`, { feature: f });
}

/** 403 `sessions_only` unless the caller is a website session (e.g. confirming a pairing). */
export function requireSession(p: Principal): void {
  requireSignedIn(p);
  if (p.kind !== 'session') throw new ForbiddenError('sessions_only', 'only a signed-in website session may do this');
}
