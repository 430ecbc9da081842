/** An account's claims for callers that carry none (devices, API keys): stored, refreshed from the provider at most every 10 minutes. */
import { MINUTE_MS } from '../clock';
import { contributorUntil } from '../domain/contributor';
import type { Claims } from '../domain/roles';
import { DomainError, UnauthenticatedError } from '../errors';
import type { StoredClaims } from '../ports/identity';
import type { Services } from '../services';
import { getUser } from './idp';
import { SingleFlight } from './memo';

export const CLAIMS_REFRESH_MS = 10 * MINUTE_MS;

export interface AccountClaims {
  email: string | null;
  /** Role claims, `contributorUntil` being the window end shown to the account (stored window, else the claim). */
  claims: Claims;
  partner: boolean;
}

/** The account's claims as of at most 10 minutes ago; stale ones serve while the provider cannot be asked. */
const refreshes = new SingleFlight<StoredClaims>();

export async function accountClaims(svc: Pick<Services, 'config' | 'identity' | 'log'>, userId: string, now: number): Promise<AccountClaims> {
  const profile = await svc.identity.getProfile(userId);
  let stored = profile.claims;
  if (!stored || now - stored.fetchedAt >= CLAIMS_REFRESH_MS) {
    try {
      stored = await refreshes.run(`${svc.config.idp.apiUrl}|${userId}`, () => refresh(svc, userId, now));
    } catch (err) {
      const cannotAsk = err instanceof DomainError && err.code === 'unavailable';
      if (!cannotAsk || !stored) throw err;
      svc.log('warn', 'identity provider unreachable; serving stored claims', { ageMs: now - stored.fetchedAt });
    }
  }
  return {
    email: stored.email,
    claims: {
      plan: stored.plan,
      contributorUntil: contributorUntil(profile.windowUntil, stored.contributorUntil),
      grants: stored.grants,
      withhold: stored.withhold,
    },
    partner: stored.partner,
  };
}

async function refresh(svc: Pick<Services, 'config' | 'identity' | 'log'>, userId: string, now: number): Promise<StoredClaims> {
  const user = await getUser(svc, userId);
  if (!user) throw new UnauthenticatedError('the account no longer exists');
  const stored: StoredClaims = {
    email: user.email,
    plan: user.plan,
    contributorUntil: user.contributorUntil,
    grants: user.grants,
    withhold: user.withhold,
    partner: user.partner,
    fetchedAt: now,
  };
  await svc.identity.putClaims(userId, stored);
  return stored;
}
