/**
 * How long a live socket's credential holds and what the caller may do on it (spec files-and-live:
 * Authentication, live socket credential rules): a session until its token's `exp` plus 10 minutes, an API
 * key for 5 minutes (renewed by `{t: "auth", token}` of the same user and kind), a device until it is deleted.
 * Features are recomputed from the socket's claims as time passes (a contributor window ends). Pure.
 */

import type { Principal } from '../auth/principal';
import { MINUTE_MS } from '../clock';
import { type Claims, type Entitlements, entitlementsOf, type SocketKind, scopedEntitlements } from '../domain/roles';

export type { SocketKind };

/** A session socket outlives its token's `exp` by 10 minutes. */
export const SESSION_GRACE_MS = 10 * MINUTE_MS;
/** An API key socket holds 5 minutes from its upgrade or last renewal. */
export const API_KEY_SOCKET_MS = 5 * MINUTE_MS;

/** When the credential of a socket stops being valid (null: a device's, until it is deleted). */
export function credentialUntil(p: Pick<Principal, 'kind' | 'validUntil'>, now: number): number | null {
  if (p.kind === 'session') return (p.validUntil ?? now) + SESSION_GRACE_MS;
  if (p.kind === 'apiKey') return now + API_KEY_SOCKET_MS;
  return null;
}

/** Whether a credential stopped being valid at `now` (close 4401). */
export const credentialExpired = (validUntil: number | null, now: number): boolean => validUntil !== null && validUntil <= now;

/** A socket's entitlements at `now` from its claims; an API key's features and limits stay within its scopes. */
export function socketEntitlements(claims: Claims, scopes: readonly string[] | null, now: number): Entitlements {
  return scopedEntitlements(entitlementsOf(claims, now), scopes);
}

/** Raises the claims' contributor window to a stored end (spec: "live sockets of the account hear the new window at once"). */
export function withWindow(claims: Claims, windowUntil: number | null): Claims {
  if (windowUntil === null || (claims.contributorUntil ?? 0) >= windowUntil) return claims;
  return { ...claims, contributorUntil: windowUntil };
}

/** Equal lists (features and roles are kept in one canonical order). */
export const sameFeatures = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((f, i) => f === b[i]);

/** Whether a fresh credential may renew a socket: the same user and the same kind (spec: `{t: "auth", token}`). */
export const mayRenew = (socket: { userId: string; kind: SocketKind }, fresh: Pick<Principal, 'userId' | 'kind'>): boolean =>
  fresh.userId === socket.userId && fresh.kind === socket.kind;
