/**
 * Who is calling (spec: Authentication). The credential comes from `Authorization: Bearer` (which decides
 * when a cookie is sent too), else `?token=` where allowed (live sockets), else the `__session` cookie. A bad
 * credential in the header or query is 401 and never anonymous; a bad cookie counts as no credential.
 */

import { DEVICE_TOKEN_PREFIX, isDeviceTokenShape, LAST_SEEN_EVERY_MS, lastSeenDue } from '../domain/pairing';
import { entitlementsOf, scopedEntitlements } from '../domain/roles';
import { type DomainError, UnauthenticatedError } from '../errors';
import type { Services } from '../services';
import { API_KEY_PREFIX, resolveApiKey } from './api-key';
import { isAllowedOrigin } from './origins';
import type { Principal } from './principal';
import { accountClaims } from './profile';
import { remoteKeys, type Session, verifySessionToken } from './session';
import { hashSecret } from './tokens';

/**
 * The parts of a request authentication reads (an HTTP request, or a WebSocket `$connect`): the HTTP layer's
 * `ApiRequest` has them all (shared/http/types.ts), named here so authentication does not import that layer.
 */
export interface AuthRequest {
  headers: Record<string, string>;
  cookies: Record<string, string>;
  query: Record<string, string>;
  /** The caller's address key (shared/domain/address-key.ts). */
  ip: string;
}

export interface AuthOptions {
  /** Accept `?token=` (browsers cannot set headers on a WebSocket). */
  queryToken?: boolean;
}

export const SESSION_COOKIE = '__session';

/** The query parameter a live socket's browser sends its credential in (`?token=`, allowed by `queryToken`). */
export const QUERY_TOKEN_PARAM = 'token';

/**
 * Whether a request carries anything `authenticate` reads as a credential (even an empty or bad one). The
 * public host's viewer-request function applies the same rule (lib/constructs/edge-cache.ts): what it leaves
 * anonymous may be answered from the shared cache.
 */
export const carriesCredential = (req: Pick<AuthRequest, 'headers' | 'cookies' | 'query'>): boolean =>
  req.headers.authorization !== undefined || req.cookies[SESSION_COOKIE] !== undefined || req.query[QUERY_TOKEN_PARAM] !== undefined;

const unauthenticated = (message: string): DomainError => new UnauthenticatedError(message);

/**
 * Resolves the caller's principal; 401 for a bad header/query credential, 503 when the provider is needed
 * and unreachable, 429 when the address asked about too many unknown API keys this minute.
 */
export async function authenticate(req: AuthRequest, svc: Pick<Services, 'config' | 'clock' | 'identity' | 'log'>, opts: AuthOptions = {}): Promise<Principal> {
  const now = svc.clock.now();
  const header = req.headers.authorization?.trim();
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) throw unauthenticated('send the credential as Authorization: Bearer <token>');
    return fromBearer(m[1], svc, now, req.ip);
  }
  if (opts.queryToken && req.query[QUERY_TOKEN_PARAM]) return fromBearer(req.query[QUERY_TOKEN_PARAM], svc, now, req.ip);
  const cookie = req.cookies[SESSION_COOKIE];
  if (cookie) {
    const session = await verifySession(cookie, svc, now);
    if (session) return sessionPrincipal(session, now);
  }
  return anonymousPrincipal(req.ip, now);
}

/** The principal of a caller without a credential. */
export function anonymousPrincipal(ip: string, now: number): Principal {
  return { kind: 'anon', userId: null, callerId: `ip:${ip}`, email: null, partner: false, contributorUntil: null, ...entitlementsOf(null, now) };
}

async function fromBearer(token: string, svc: Pick<Services, 'config' | 'identity' | 'log'>, now: number, ip: string): Promise<Principal> {
  if (token.startsWith(DEVICE_TOKEN_PREFIX)) return devicePrincipal(token, svc, now);
  if (token.startsWith(API_KEY_PREFIX)) return apiKeyPrincipal(token, svc, now, ip);
  const session = await verifySession(token, svc, now);
  if (!session) throw unauthenticated('the session token is invalid or expired');
  return sessionPrincipal(session, now);
}

function verifySession(token: string, svc: Pick<Services, 'config'>, now: number): Promise<Session | null> {
  const { config } = svc;
  return verifySessionToken(token, {
    keys: remoteKeys(config.idp.jwksUrl),
    issuer: config.idp.issuer,
    now,
    isAllowedAzp: (azp) => isAllowedOrigin(azp, config),
  });
}

/** What every signed-in principal carries of its account: email, partner flag, contributor window, and its features. */
function accountPart<E>(
  account: { email: Principal['email']; partner: boolean; claims: { contributorUntil?: number | null } },
  entitlements: E,
): { email: Principal['email']; partner: boolean; contributorUntil: number | null } & E {
  return { email: account.email, partner: account.partner, contributorUntil: account.claims.contributorUntil ?? null, ...entitlements };
}

function sessionPrincipal(s: Session, now: number): Principal {
  return {
    kind: 'session',
    userId: s.userId,
    callerId: `user:${s.userId}`,
    validUntil: s.expires,
    ...accountPart(s, entitlementsOf(s.claims, now)),
  };
}

async function devicePrincipal(token: string, svc: Pick<Services, 'config' | 'identity' | 'log'>, now: number): Promise<Principal> {
  if (!isDeviceTokenShape(token)) throw unauthenticated('the device token is not valid');
  const tokenHash = hashSecret(token);
  const device = await svc.identity.deviceByToken(tokenHash);
  if (!device) throw unauthenticated('the device token is not valid');
  if (lastSeenDue(device.seen ?? undefined, now)) await svc.identity.touchDevice(device, tokenHash, now, now - LAST_SEEN_EVERY_MS);
  const account = await accountClaims(svc, device.userId, now);
  return {
    kind: 'device',
    userId: device.userId,
    callerId: `dev:${device.deviceId}`,
    deviceId: device.deviceId,
    ...accountPart(account, entitlementsOf(account.claims, now)),
  };
}

async function apiKeyPrincipal(token: string, svc: Pick<Services, 'config' | 'identity' | 'log'>, now: number, ip: string): Promise<Principal> {
  const keyHash = hashSecret(token);
  const key = await resolveApiKey(svc, token, keyHash, now, ip);
  const account = await accountClaims(svc, key.userId, now);
  // A key has only those of its user's features its scopes name, and the limits that go with them.
  const ent = scopedEntitlements(entitlementsOf(account.claims, now), key.scopes);
  return {
    kind: 'apiKey',
    userId: key.userId,
    callerId: `key:${keyHash.slice(0, 32)}`,
    validUntil: key.until,
    ...accountPart(account, ent),
  };
}
