/**
 * Session JWT verification (spec: Authentication rule 1): RS256 with the instance's key (JWKS), `iss` the
 * instance's frontend API, `exp`/`nbf` with 5 s of skew on the service clock, `azp` one of the deployment's
 * origins. Claims follow Clerk's session token: `sub`, `pla`, and `meta` carrying the public metadata.
 */
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Claims } from '../domain/roles';
import { UnavailableError } from '../errors';

export const SESSION_SKEW_SECONDS = 5;

export interface Session {
  userId: string;
  email: string | null;
  claims: Claims;
  partner: boolean;
  /** When the token expires (ms). */
  expires: number;
}

export interface SessionCheck {
  keys: JWTVerifyGetKey;
  issuer: string;
  now: number;
  isAllowedAzp: (azp: string) => boolean;
}

const keySets = new Map<string, JWTVerifyGetKey>();

/** The instance's signing keys from its JWKS URL, fetched once and cached by jose (refetched for an unknown `kid`). */
export function remoteKeys(jwksUrl: string): JWTVerifyGetKey {
  let keys = keySets.get(jwksUrl);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    keySets.set(jwksUrl, keys);
  }
  return keys;
}

/**
 * Verifies a session token; null when it is invalid or expired (the caller decides 401 or anonymous).
 * Throws 503 `unavailable` when the keys cannot be fetched: that says nothing about the token.
 */
export async function verifySessionToken(token: string, check: SessionCheck): Promise<Session | null> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, check.keys, {
      algorithms: ['RS256'],
      issuer: check.issuer,
      clockTolerance: SESSION_SKEW_SECONDS,
      currentDate: new Date(check.now),
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (err) {
    if (keysUnreachable(err)) throw new UnavailableError('unavailable', 'the identity provider cannot be reached');
    return null;
  }
  if (typeof payload.azp !== 'string' || !check.isAllowedAzp(payload.azp)) return null;
  if (typeof payload.sub !== 'string' || payload.sub === '' || typeof payload.exp !== 'number') return null;
  return sessionOf(payload as JWTPayload & { sub: string; exp: number });
}

/** Fetch failures of the key set (network, timeout, non-200, not a key set), as opposed to a bad token. */
function keysUnreachable(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return true;
  // jose reports a non-200 key set answer as a plain JOSEError; token faults all have specific classes.
  if (err instanceof errors.JOSEError) return err.code === 'ERR_JOSE_GENERIC';
  return true;
}

function sessionOf(p: JWTPayload & { sub: string; exp: number }): Session {
  const meta = (p.meta && typeof p.meta === 'object' ? p.meta : {}) as Record<string, unknown>;
  const until = meta.contributorUntil;
  return {
    userId: p.sub,
    email: typeof p.email === 'string' ? p.email : null,
    claims: {
      plan: planOf(p.pla),
      contributorUntil: typeof until === 'number' && Number.isFinite(until) ? until : null,
      grants: strings(meta.grants),
      withhold: strings(meta.withhold),
    },
    partner: meta.partner === true,
    expires: p.exp * 1000,
  };
}

/** Clerk's `pla` is `u:<plan>` (user) or `o:<plan>` (organization); a bare plan name is accepted too. */
function planOf(pla: unknown): string | null {
  if (typeof pla !== 'string' || pla === '') return null;
  const i = pla.indexOf(':');
  return i >= 0 ? pla.slice(i + 1) : pla;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
