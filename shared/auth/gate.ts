/**
 * The checks of a caller that admission (shared/http/admit.ts) and route code share: signed in (401), under
 * the rate limit (429), holding a feature or a session (403). Route code adds its own later checks
 * (`sessions_only`, `devices_only`, …).
 */
import type { Feature } from '../domain/roles';
import { ForbiddenError, LimitError, UnauthenticatedError } from '../errors';
import type { Services } from '../services';
import type { Principal } from './principal';
import { rateMeter } from './rate-meter';

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
