/**
 * Who uploads (spec Uploads, Authentication rule 5, Partners): the account that earns credit, the caller
 * the 5-minute limit counts, and the opaque hash that is the only trace of the uploader in market data.
 */
import { createHash, createHmac } from 'node:crypto';
import { requireFeature, requireSignedIn } from '../auth/gate';
import type { Principal } from '../auth/principal';
import { ForbiddenError } from '../errors';

/** Shorter keys are refused: the key is what keeps a hash from being recomputed from a known account id. */
export const UPLOADER_KEY_MIN_LENGTH = 32;

/**
 * The opaque uploader hash written into rows, the scan log and merge messages (never answered): an HMAC of
 * the account id under the deployment's own key (issue 11, point 8), so a hash cannot be recomputed from an
 * account id, nor matched across deployments (a preview, dev and production hash one account differently).
 * Stable within a deployment, which is all consensus (`disagrees`) and `contributors7d` compare.
 */
export function uploaderHash(userId: string, key: string): string {
  if (key.length < UPLOADER_KEY_MIN_LENGTH) throw new Error('the uploader key is not configured');
  return createHmac('sha256', key).update(userId, 'utf8').digest('base64url').slice(0, 16);
}

export interface Uploader {
  /** The account credited (for `via` uploads: the partner's). */
  userId: string;
  accountHash: string;
  /** The caller of the retry identity and of the 5-minute limit: the device, the API key, or the partner's `via`. */
  caller: string;
}

/**
 * Spec Authentication rule 5 and Uploads: anonymous 401, a session 403 `devices_only`, a device needs
 * `upload.device` and an API key `api.upload` (403 `forbidden`).
 */
export function requireUploader(p: Principal): asserts p is Principal & { userId: string } {
  requireSignedIn(p);
  if (p.kind === 'session') throw new ForbiddenError('devices_only', 'a browser session cannot upload; use the desktop app or an API key');
  requireFeature(p, p.kind === 'apiKey' ? 'api.upload' : 'upload.device');
}

/** Spec Partners: only an API key of a partner account may send `via` (403 `not_partner`), checked before body rules. */
export function requireViaAllowed(p: Principal, via: unknown): void {
  if (via !== undefined && !(p.kind === 'apiKey' && p.partner)) throw new ForbiddenError('not_partner', 'only partner API keys may send via');
}

/** The uploader of a book: with `via`, the limit and retries count per (partner, via) and credit goes to the partner. */
export function uploaderOf(p: Principal & { userId: string }, via: string | undefined, key: string): Uploader {
  return { userId: p.userId, accountHash: uploaderHash(p.userId, key), caller: via === undefined ? p.callerId : `via:${p.userId}:${via}` };
}

/** Spec Uploads, retry: the identity of (account, caller, market, kind, at), hashed so keys stay short and opaque. */
export function retryIdentity(u: Uploader, market: string, kind: 'book', at: number): string {
  return createHash('sha256')
    .update([u.userId, u.caller, market, kind, String(at)].join('\n'), 'utf8')
    .digest('base64url')
    .slice(0, 32);
}
