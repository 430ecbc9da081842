/**
 * Limits that keep floods from costing money before any work is done (issue 11): lookups of unknown API
 * keys per client address, messages per live socket, and missed pairing confirms per account. Each is far
 * above what an honest client does; the reasoning is beside each number. Pure.
 */
import { MINUTE_MS } from '../clock';

/**
 * API keys that need the identity provider (neither cached nor recently refused) per client address and
 * minute. An integrator has a few keys, each verdict is cached 5 minutes (a refusal 60 s), so an honest
 * address asks a handful of times per 5 minutes; the provider's own limit is about 100 requests per 10 s.
 */
export const KEY_LOOKUPS_PER_MINUTE = 20;

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
