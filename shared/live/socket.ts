/**
 * The live socket's lifecycle (spec api.md "Live socket", files-and-live "Authentication"):
 * `$connect` admits with 401 (anonymous or bad credential), 429 (past the per-minute limit), 403 (`bad_origin`
 * for a cookie upgrade from a foreign page, then no `live`), 400 `bad_market` (missing or unknown market), 429
 * (the account's open sockets at its cap: upgrade-limits.ts), in that order, and stores the socket (its INSERT
 * makes the fan-out send `hello`);
 * `$default` answers `{t: "auth", token}` renewals; `$disconnect` forgets the socket; the sweep (every
 * minute) closes sockets whose credential expired (4401) or that lost `live` (4403), and an account's newest
 * sockets past its cap (1008).
 */
import { resolveApiKey } from '../auth/api-key';
import { type AuthRequest, authenticate, SESSION_COOKIE } from '../auth/authenticate';
import { isAllowedOrigin } from '../auth/origins';
import type { Principal } from '../auth/principal';
import { accountClaims } from '../auth/profile';
import { remoteKeys, verifySessionToken } from '../auth/session';
import { hashSecret } from '../auth/tokens';
import { minuteOf } from '../clock';
import { SOCKET_MESSAGES_PER_MINUTE } from '../domain/flood-limits';
import { MARKETS, parseMarket } from '../domain/market';
import type { Claims } from '../domain/roles';
import { DomainError, ForbiddenError, forbidden, UnauthenticatedError } from '../errors';
import type { LiveConnection } from '../ports/connections';
import type { Services } from '../services';
import { credentialUntil, mayRenew, type SocketKind, sameFeatures } from './credentials';
import type { AuthRequestMessage } from './message-types';
import { authMessage, errorMessage, rolesMessage } from './messages';
import { accountClaimsCache, type SocketOutcome, sweepSocket } from './roles-watch';
import { CLOSE_FORBIDDEN, CLOSE_POLICY, closeConnection, send } from './sender';
import { closeOverCap, meteredUpgradeCaller, requireSocketRoom } from './upgrade-limits';

/** What `$connect` sees of the upgrade request. */
export interface ConnectRequest extends AuthRequest {
  connectionId: string;
}

/** The credential as `authenticate` took it: `Authorization: Bearer`, else `?token=`, else the session cookie. */
function credentialOf(req: AuthRequest): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization?.trim() ?? '');
  return m ? m[1] : (req.query.token ?? req.cookies[SESSION_COOKIE] ?? null);
}

/** Whether the `__session` cookie authenticated the upgrade (no `Authorization` and no `?token=` was sent). */
const byCookie = (req: AuthRequest, p: Principal): boolean => p.kind === 'session' && !req.headers.authorization?.trim() && !req.query.token;

/**
 * What the socket keeps to recompute its features later: a session's own claims (from its token), else the
 * account's stored claims; an API key's scopes. `authenticate` just read all of them (cached).
 */
async function socketClaims(
  svc: Pick<Services, 'config' | 'clock' | 'identity' | 'log'>,
  p: Principal,
  token: string | null,
  ip: string,
): Promise<{ claims: Claims; scopes: string[] | null }> {
  const now = svc.clock.now();
  if (p.kind === 'session') {
    const session = token
      ? await verifySessionToken(token, {
          keys: remoteKeys(svc.config.idp.jwksUrl),
          issuer: svc.config.idp.issuer,
          now,
          isAllowedAzp: (azp) => isAllowedOrigin(azp, svc.config),
        })
      : null;
    if (!session) throw new UnauthenticatedError('the session token is invalid or expired');
    return { claims: session.claims, scopes: null };
  }
  const { claims } = await accountClaims(svc, p.userId as string, now);
  const scopes = p.kind === 'apiKey' && token ? (await resolveApiKey(svc, token, hashSecret(token), now, ip)).scopes : null;
  return { claims, scopes };
}

/**
 * `$connect`: admits the upgrade or throws the refusal's domain error (401, 429 past the per-minute limit, then
 * 403 `bad_origin`, 403 `forbidden`, 400 `bad_market`, 429 past the account's open sockets); an admitted
 * socket is stored.
 */
export async function connectSocket(svc: Pick<Services, 'config' | 'clock' | 'connections' | 'identity' | 'log'>, req: ConnectRequest): Promise<void> {
  const principal = await meteredUpgradeCaller(svc, req);
  // A browser sends the cookie with any site's upgrade: only the deployment's own pages may use it (rule 3).
  if (byCookie(req, principal) && !isAllowedOrigin(req.headers.origin, svc.config))
    throw new ForbiddenError('bad_origin', 'a session cookie upgrade needs an Origin of this deployment');
  if (!principal.features.includes('live')) throw forbidden('live');
  // The same `?market` rule as GET /api/v1/live answered without an upgrade (its LiveQuery schema, 400
  // `bad_market`), without zod: every socket function bundles this module, and zod's classic API would
  // weigh on their cold starts.
  const market = parseMarket(req.query.market);
  await requireSocketRoom(svc, principal);
  const now = svc.clock.now();
  const { claims, scopes } = await socketClaims(svc, principal, credentialOf(req), req.ip);
  await svc.connections.add({
    connectionId: req.connectionId,
    market,
    userId: principal.userId,
    kind: principal.kind as SocketKind,
    deviceId: principal.deviceId,
    claims,
    scopes,
    roles: principal.roles,
    features: principal.features,
    historyDays: principal.limits.historyDays,
    validUntil: credentialUntil(principal, now),
    connectedAt: now,
    addressKey: req.ip,
  });
}

function parseClientMessage(body: string | null | undefined): AuthRequestMessage | null {
  try {
    const v = JSON.parse(body ?? '') as Record<string, unknown> | null;
    if (v && typeof v === 'object' && v.t === 'auth' && typeof v.token === 'string' && v.token !== '') return { t: 'auth', token: v.token };
  } catch {
    // not JSON: a bad message
  }
  return null;
}

/**
 * `$default`: `{t: "auth", token}` with a fresh credential of the same user and kind renews the socket
 * (`{t: "auth", until}`); a refused credential is `unauthenticated`, an unreachable identity provider
 * `unavailable`; anything else `bad_message`.
 */
export async function socketMessage(
  svc: Pick<Services, 'config' | 'clock' | 'connections' | 'sockets' | 'identity' | 'log'>,
  connectionId: string,
  body: string | null | undefined,
  sourceIp: string,
): Promise<void> {
  // Metered before anything else: a flood costs one counter update per message until the socket is closed.
  const counted = await svc.connections.countMessage(connectionId, minuteOf(svc.clock.now()));
  if (!counted) return;
  if (counted.count > SOCKET_MESSAGES_PER_MINUTE) {
    // Only the message that crossed the limit closes; later ones of the flood find the socket gone or closing.
    if (counted.count === SOCKET_MESSAGES_PER_MINUTE + 1) await closeConnection(svc, counted.at, CLOSE_POLICY);
    return;
  }
  const c = await svc.connections.at(counted.at);
  if (!c) return;
  const ip = c.addressKey ?? sourceIp;
  const msg = parseClientMessage(body);
  if (!msg) {
    await send(svc, c, JSON.stringify(errorMessage('bad_message')));
    return;
  }
  let fresh: Principal;
  try {
    fresh = await authenticate({ headers: { authorization: `Bearer ${msg.token}` }, cookies: {}, query: {}, ip }, svc);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // A renewal met by the address's API key meter is told to try later, as when the provider is down.
    const error = err.code === 'unavailable' || err.code === 'rate_limited' ? 'unavailable' : 'unauthenticated';
    await send(svc, c, JSON.stringify(errorMessage(error)));
    return;
  }
  if (fresh.kind === 'anon' || !mayRenew(c, fresh)) {
    await send(svc, c, JSON.stringify(errorMessage('unauthenticated')));
    return;
  }
  const now = svc.clock.now();
  const until = credentialUntil(fresh, now);
  const { claims, scopes } = await socketClaims(svc, fresh, msg.token, ip);
  const changed = !sameFeatures(fresh.features, c.features) || !sameFeatures(fresh.roles, c.roles);
  const stored = await svc.connections.update(
    { ...c },
    {
      validUntil: until,
      claims,
      scopes,
      roles: fresh.roles,
      features: fresh.features,
      historyDays: fresh.limits.historyDays,
      deviceId: fresh.deviceId,
    },
  );
  if (!stored) return;
  Object.assign(c, { scopes, validUntil: until, roles: fresh.roles, features: fresh.features, historyDays: fresh.limits.historyDays });
  await send(svc, c, JSON.stringify(authMessage(until)));
  const audience = { roles: fresh.roles, features: fresh.features, historyDays: fresh.limits.historyDays };
  if (!fresh.features.includes('live')) await closeConnection(svc, c, CLOSE_FORBIDDEN, JSON.stringify(rolesMessage(audience)));
  else if (changed) await send(svc, c, JSON.stringify(rolesMessage(audience)));
}

/** `$disconnect`: the socket is forgotten. */
export const disconnectSocket = (svc: Pick<Services, 'connections'>, connectionId: string): Promise<boolean> => svc.connections.removeById(connectionId);

/** API Gateway ends every connection after 2 hours; a record older than that lost its `$disconnect`. */
const MAX_CONNECTION_MS = 2 * 3_600_000 + 10 * 60_000;

/** The live sweep: every socket of every market checked at the service clock's now. */
export async function sweepSockets(
  svc: Pick<Services, 'config' | 'clock' | 'connections' | 'sockets' | 'identity' | 'log'>,
): Promise<Record<SocketOutcome | 'closedOverCap', number>> {
  const now = svc.clock.now();
  const counts: Record<SocketOutcome, number> = { kept: 0, roles: 0, closed4401: 0, closed4403: 0, gone: 0 };
  const open: LiveConnection[] = [];
  const claimsOf = accountClaimsCache(svc, now);
  // The local gateway keeps sockets open as long as the client does.
  const aws = !svc.config.localGateway;
  for (const market of MARKETS) {
    for (const c of await svc.connections.ofMarket(market)) {
      try {
        if (aws && now - c.connectedAt > MAX_CONNECTION_MS) {
          await svc.connections.removeById(c.connectionId);
          counts.gone++;
          continue;
        }
        const outcome = await sweepSocket(svc, c, now, claimsOf);
        counts[outcome]++;
        if (outcome === 'kept' || outcome === 'roles') open.push(c);
      } catch (err) {
        svc.log('warn', 'live sweep: a socket could not be checked', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return { ...counts, closedOverCap: await closeOverCap(svc, open, now) };
}
