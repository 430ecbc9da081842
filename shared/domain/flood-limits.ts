/**
 * Limits that keep floods from costing money before any work is done (issue 11): lookups of unknown API
 * keys per client address and in the whole deployment (issue 23), messages per live socket, and missed
 * pairing confirms per account. Each is far above what an honest client does; the reasoning is beside
 * each number. Pure.
 */
import { DAY_MS, MINUTE_MS } from '../clock';

/**
 * API keys that need the identity provider (neither cached nor recently refused) per client address and
 * minute (IPv6 per /48: domain/address-key.ts, `lookupAddressKey`). An integrator has a few keys, each
 * verdict is cached 5 minutes (a refusal 60 s), so an honest address asks a handful of times per 5 minutes.
 */
export const KEY_LOOKUPS_PER_MINUTE = 20;

/** The deployment-wide budget of API key verifications asked of the identity provider, per window. */
export interface KeyCheckBudget {
  windowMs: number;
  /** Verifications per window in all: keys verified before may use every one. */
  perWindow: number;
  /** Of those, what keys never verified before may use; the rest is reserved for keys verified before. */
  newKeysPerWindow: number;
}

/** The budget on a development instance of the identity provider (the reasoning: {@link keyCheckBudget}). */
const DEVELOPMENT_INSTANCE: KeyCheckBudget = { windowMs: 10_000, perWindow: 40, newKeysPerWindow: 25 };

/**
 * The budget of key verifications for a stage, by the identity instance it uses: production stages use a
 * production instance (1000 requests per 10 s), every other stage and the local runtime a development one
 * (100 per 10 s). 40 verifications per 10 s window on a development instance keeps two back-to-back windows
 * (80 in any 10 s) under its 100 with room for user reads and metadata writes, which are not budgeted (only
 * verified callers cause them, each cached); production gets ten times that, against ten times the quota.
 * Never-seen keys get 25 of each 40 (150 new keys a minute in the whole deployment); the other 15 (90 a
 * minute, about 450 keys in use re-verified every 5 minutes) stay for keys verified in the last
 * {@link KEY_SEEN_MS}, so a flood of new keys cannot starve real ones. Change the numbers here.
 */
export function keyCheckBudget(env: 'production' | 'dev' | 'preview'): KeyCheckBudget {
  const b = DEVELOPMENT_INSTANCE;
  return env === 'production' ? { windowMs: b.windowMs, perWindow: 10 * b.perWindow, newKeysPerWindow: 10 * b.newKeysPerWindow } : b;
}

/** How long a key the provider accepted is remembered as verified before (its verdict item is kept that long). */
export const KEY_SEEN_MS = 30 * DAY_MS;

/**
 * Client messages per live socket and minute. The only client message is `{t: "auth"}`: an API key socket
 * renews every few minutes, a browser session at most about once a minute (its token lives a minute).
 */
export const SOCKET_MESSAGES_PER_MINUTE = 20;

/**
 * Confirms of well-formed codes that match no waiting pairing, per account, within a window opened by the
 * first such miss. A code is 8 characters of a 32-letter alphabet (2^40 ≈ 1.1e12 codes), so with W pairings
 * waiting one guess hits with probability W / 2^40; 10 misses per 10 minutes (1440 a day) make a spray
 * hopeless, while a person mistyping a code a few times never meets the limit.
 */
export const PAIRING_MISSES = 10;
export const PAIRING_MISS_WINDOW_MS = 10 * MINUTE_MS;
