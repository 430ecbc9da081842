/**
 * Keeping a socket's roles true (spec Events `roles`; live socket credential rules): recompute its features
 * from its claims at `now`, tell it when they change, close it with 4403 when it loses `live` and with
 * 4401 when its credential stopped being valid. Hears the change feed's profile changes and device deletions
 * (through the fan-out) and runs at the live sweep (every minute).
 */
import { type AccountClaims, accountClaims } from '../auth/profile';
import type { Claims, Entitlements } from '../domain/roles';
import type { DeviceRemoved, ProfileChanged } from '../ports/changes';
import type { LiveConnection } from '../ports/connections';
import type { Services } from '../services';
import { credentialExpired, sameFeatures, socketEntitlements, withWindow } from './credentials';
import { errorMessage, rolesMessage } from './messages';
import { CLOSE_FORBIDDEN, CLOSE_UNAUTHENTICATED, closeConnection, send } from './sender';

export type SocketOutcome = 'kept' | 'roles' | 'closed4401' | 'closed4403' | 'gone';

const audienceOf = (e: Entitlements) => ({ roles: e.roles, features: e.features, historyDays: e.limits.historyDays });

/** Closes a socket whose credential stopped being valid (4401). */
export async function closeUnauthenticated(svc: Pick<Services, 'connections' | 'sockets'>, c: LiveConnection): Promise<SocketOutcome> {
  await closeConnection(svc, c, CLOSE_UNAUTHENTICATED, JSON.stringify(errorMessage('unauthenticated')));
  return 'closed4401';
}

/** Applies new claims to a socket: closes it without `live` (4403), else sends `roles` when its features changed. */
export async function applyClaims(svc: Pick<Services, 'connections' | 'sockets'>, c: LiveConnection, claims: Claims, now: number): Promise<SocketOutcome> {
  const ent = socketEntitlements(claims, c.scopes, now);
  if (!ent.features.includes('live')) {
    await closeConnection(svc, c, CLOSE_FORBIDDEN, JSON.stringify(rolesMessage(audienceOf(ent))));
    return 'closed4403';
  }
  const changed = !sameFeatures(ent.features, c.features) || !sameFeatures(ent.roles, c.roles) || ent.limits.historyDays !== c.historyDays;
  const claimsMoved = JSON.stringify(claims) !== JSON.stringify(c.claims);
  if (!changed && !claimsMoved) return 'kept';
  const stored = await svc.connections.update(c, { claims, roles: ent.roles, features: ent.features, historyDays: ent.limits.historyDays });
  if (!stored) return 'gone';
  if (!changed) return 'kept';
  Object.assign(c, { claims, roles: ent.roles, features: ent.features, historyDays: ent.limits.historyDays });
  return (await send(svc, c, JSON.stringify(rolesMessage(audienceOf(ent))))) ? 'roles' : 'gone';
}

/** The claims of an account as stored (devices and API keys carry none of their own). */
export const storedClaims = (a: AccountClaims): Claims => a.claims;

/** A profile change: the account's sockets get their claims raised by the stored window, or the account's new claims. */
export async function profileChanged(svc: Pick<Services, 'clock' | 'connections' | 'sockets'>, e: ProfileChanged): Promise<void> {
  const now = svc.clock.now();
  for (const c of await svc.connections.ofUser(e.userId)) {
    const claims = c.kind === 'session' || !e.claims ? withWindow(c.claims, e.windowUntil) : e.claims;
    await applyClaims(svc, c, claims, now);
  }
}

/** A device deleted: its sockets close with 4401. */
export async function deviceRemoved(svc: Pick<Services, 'connections' | 'sockets'>, e: DeviceRemoved): Promise<void> {
  for (const c of await svc.connections.ofUser(e.userId)) if (c.kind === 'device' && c.deviceId === e.deviceId) await closeUnauthenticated(svc, c);
}

/**
 * One socket at the live sweep: 4401 once its credential expired (or its device is gone), else its
 * features at `now` (sessions from their own claims, devices and API keys from the account's stored claims,
 * refreshed from the identity provider at most every 10 minutes).
 */
export async function sweepSocket(
  svc: Pick<Services, 'connections' | 'sockets' | 'identity'>,
  c: LiveConnection,
  now: number,
  claimsOf: (userId: string) => Promise<AccountClaims | null>,
): Promise<SocketOutcome> {
  if (credentialExpired(c.validUntil, now)) return closeUnauthenticated(svc, c);
  if (c.kind === 'device' && c.deviceId && !(await svc.identity.getDevice(c.userId, c.deviceId, now))) return closeUnauthenticated(svc, c);
  if (c.kind === 'session') return applyClaims(svc, c, c.claims, now);
  const account = await claimsOf(c.userId);
  return account ? applyClaims(svc, c, storedClaims(account), now) : 'kept';
}

/** A per-sweep cache of account claims; an account whose claims cannot be read keeps its sockets as they are. */
export function accountClaimsCache(svc: Pick<Services, 'config' | 'identity' | 'log'>, now: number): (userId: string) => Promise<AccountClaims | null> {
  const cache = new Map<string, Promise<AccountClaims | null>>();
  return (userId) => {
    let hit = cache.get(userId);
    if (!hit) {
      hit = accountClaims(svc, userId, now).catch((err) => {
        svc.log('warn', 'live sweep: account claims unavailable', { error: err instanceof Error ? err.message : String(err) });
        return null;
      });
      cache.set(userId, hit);
    }
    return hit;
  };
}
