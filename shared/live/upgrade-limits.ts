/**
 * The live upgrade's limits (issue 23 point 3): without them one account or one device token could open
 * sockets at API Gateway's connect throttle, and every socket slows its market's fan-out and the minute sweep.
 *
 * - Every upgrade counts against the caller's `apiPerMinute`, as any other `/api/v1/` request does (the spec's
 *   limit covers all `/api/v1/` routes; `/api/v1/live` is one). The check follows authentication (DESIGN check
 *   order: 401 → 429 → 403 → 400).
 * - An upgrade that authenticates no one (no credential, or one refused with 401) counts against its address
 *   (IPv6 by /64) as an anonymous request does; past the address's share it is 429 in place of 401, so a flood
 *   of them is refused before any socket work (docs/interpretations.md: a deviation from "401 first").
 * - An account has at most `limits.liveSockets` sockets open at once, across markets and credentials: one past
 *   it is 429 before the upgrade. Checked last, as the spec's other state limits are, with a count of the
 *   account's stored socket entries (ConnectionsPort.countOfUser: why a count and not a counter). Upgrades
 *   of one account that run at the same moment can each see room; the minute sweep closes an account's newest
 *   sockets past its cap (1008), so such an excess lasts less than a minute.
 */
import type { AuthRequest } from '../auth/authenticate';
import { anonymousPrincipal, authenticate } from '../auth/authenticate';
import { countCall, requireSignedIn, requireUnderLimit } from '../auth/gate';
import type { Principal } from '../auth/principal';
import { LimitError, UnauthenticatedError } from '../errors';
import type { LiveConnection } from '../ports/connections';
import type { Services } from '../services';
import { socketEntitlements } from './credentials';
import { CLOSE_POLICY, closeConnection } from './sender';

type UpgradeServices = Pick<Services, 'config' | 'clock' | 'identity' | 'log'>;

/**
 * The upgrade's caller, counted against its per-minute limit: 401 for no one or a refused credential (429
 * once its address is past the anonymous share this minute), 429 for a caller past its own limit.
 */
export async function meteredUpgradeCaller(svc: UpgradeServices, req: AuthRequest): Promise<Principal & { userId: string }> {
  let principal: Principal;
  try {
    principal = await authenticate(req, svc, { queryToken: true });
  } catch (err) {
    // A refused credential is metered per address, like an upgrade that sent none.
    if (err instanceof UnauthenticatedError) await countOrRefuse(svc, anonymousPrincipal(req.ip, svc.clock.now()));
    throw err;
  }
  await countOrRefuse(svc, principal);
  requireSignedIn(principal);
  return principal;
}

async function countOrRefuse(svc: UpgradeServices, p: Principal): Promise<void> {
  requireUnderLimit(p, await countCall(svc, p, svc.clock.now()));
}

/** 429 `rate_limited` when the account already has its plan's number of live sockets open. */
export async function requireSocketRoom(svc: Pick<Services, 'connections'>, p: Principal & { userId: string }): Promise<void> {
  const cap = p.limits.liveSockets;
  if ((await svc.connections.countOfUser(p.userId)) >= cap)
    throw new LimitError('rate_limited', `at most ${cap} live sockets open at once per account; close one first`, { limit: cap }, 60);
}

/**
 * The sweep's half of the cap: of each account's open sockets (`open`, those the sweep kept), the newest past
 * its cap are closed with 1008 and forgotten, the oldest kept. The cap is the largest any of the account's
 * sockets is entitled to now. Answers how many were closed; reads nothing the sweep has not read.
 */
export async function closeOverCap(svc: Pick<Services, 'connections' | 'sockets' | 'log'>, open: LiveConnection[], now: number): Promise<number> {
  const byAccount = new Map<string, LiveConnection[]>();
  for (const c of open) {
    const mine = byAccount.get(c.userId);
    if (mine) mine.push(c);
    else byAccount.set(c.userId, [c]);
  }
  let closed = 0;
  for (const mine of byAccount.values()) {
    const cap = Math.max(...mine.map((c) => socketEntitlements(c.claims, c.scopes, now).limits.liveSockets));
    if (mine.length <= cap) continue;
    for (const c of mine.sort((a, b) => a.connectedAt - b.connectedAt).slice(cap)) {
      try {
        await closeConnection(svc, c, CLOSE_POLICY);
        closed++;
      } catch (err) {
        svc.log('warn', 'live sweep: a socket past its account’s cap could not be closed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return closed;
}
