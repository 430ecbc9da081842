/**
 * The identity provider's Backend API subset (Clerk-compatible): API key verification, user reads and
 * metadata merges. The base URL is configuration, so the same calls reach Clerk and the local provider.
 */
import { type DomainError, UnavailableError } from '../errors';
import type { UserClaims } from '../ports/identity';
import type { Services } from '../services';

/** A user's record: its id and its claims. */
export interface IdpUser extends UserClaims {
  id: string;
}

/** A verified key's subject and scopes (the features it may have; empty: none). */
export type KeyCheck = { ok: true; subject: string; scopes: string[] } | { ok: false };

const TIMEOUT_MS = 5000;

const unavailable = (): DomainError => new UnavailableError('unavailable', 'the identity provider cannot be reached');

async function call(svc: Pick<Services, 'config'>, method: string, path: string, body?: unknown): Promise<Response> {
  const base = svc.config.idp.apiUrl.replace(/\/+$/, '');
  try {
    return await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${svc.config.idp.secretKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw unavailable();
  }
}

/** A provider answer that is neither a result nor a refusal: we cannot ask it (5xx, or our own secret is refused). */
function failed(svc: Pick<Services, 'log'>, what: string, res: Response): DomainError {
  svc.log(res.status >= 500 ? 'warn' : 'error', 'identity provider call failed', { what, status: res.status });
  return unavailable();
}

async function readJson(res: Response): Promise<Record<string, unknown>> {
  try {
    const v = (await res.json()) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Verifies an API key: its subject and scopes, or a refusal (unknown, revoked or expired). */
export async function verifyApiKey(svc: Pick<Services, 'config' | 'log'>, secret: string): Promise<KeyCheck> {
  const res = await call(svc, 'POST', '/v1/api_keys/verify', { secret });
  if (res.status === 400 || res.status === 404 || res.status === 410 || res.status === 422) {
    await res.body?.cancel();
    return { ok: false };
  }
  if (!res.ok) throw failed(svc, 'api_keys/verify', res);
  const key = await readJson(res);
  if (key.revoked === true || key.expired === true || typeof key.subject !== 'string') return { ok: false };
  // A key has only the features its scopes name: an empty (or missing) list names none, never "all".
  const scopes = strs(key.scopes);
  return { ok: true, subject: key.subject, scopes };
}

/** Reads a user; null when the provider does not know them. */
export async function getUser(svc: Pick<Services, 'config' | 'log'>, userId: string): Promise<IdpUser | null> {
  const res = await call(svc, 'GET', `/v1/users/${encodeURIComponent(userId)}`);
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw failed(svc, 'users', res);
  return parseUser(await readJson(res), userId);
}

/** Deep-merges keys into a user's public metadata. */
export async function mergePublicMetadata(svc: Pick<Services, 'config' | 'log'>, userId: string, meta: Record<string, unknown>): Promise<void> {
  const res = await call(svc, 'PATCH', `/v1/users/${encodeURIComponent(userId)}/metadata`, { public_metadata: meta });
  await res.body?.cancel();
  if (!res.ok) throw failed(svc, 'users/metadata', res);
}

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Clerk's user object: `email_addresses` with `primary_email_address_id`, roles in `public_metadata`. */
export function parseUser(u: Record<string, unknown>, fallbackId: string): IdpUser {
  const meta = (u.public_metadata && typeof u.public_metadata === 'object' ? u.public_metadata : {}) as Record<string, unknown>;
  const emails = Array.isArray(u.email_addresses) ? (u.email_addresses as Array<Record<string, unknown>>) : [];
  const primary = emails.find((e) => e.id === u.primary_email_address_id) ?? emails[0];
  const until = meta.contributorUntil;
  return {
    id: typeof u.id === 'string' ? u.id : fallbackId,
    email: typeof primary?.email_address === 'string' ? primary.email_address : null,
    plan: typeof meta.plan === 'string' ? meta.plan : null,
    contributorUntil: typeof until === 'number' && Number.isFinite(until) ? until : null,
    grants: strs(meta.grants),
    withhold: strs(meta.withhold),
    partner: meta.partner === true,
  };
}
