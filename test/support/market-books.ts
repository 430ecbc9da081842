/**
 * Small hand-made books for read tests: one entry per listed item (`stack` = quantity, one auction, long
 * band), uploaded over HTTP with an API key and merged by settling the runtime.
 */
import { httpClient } from '../../shared/client';
import type { Local } from './local';

export const MARKET = 'forever.normal.alliance.us';
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** `[key, price, quantity]` of one listed item. */
export type Listing = [key: number, price: number, quantity: number];

export function bookOf(at: number, listings: readonly Listing[], complete = true, market = MARKET) {
  const entries = [...listings]
    .sort((a, b) => a[0] - b[0])
    .map(([key, price, quantity]): [number, number, number, number, number] => [key, price, quantity, 3, 1]);
  return { market, at, complete, auctions: entries.length, entries };
}

/** Uploaders: a free user's API key (free has `api.upload`); each key is its own caller for the 5-minute limit. */
export async function uploaderKey(local: Local): Promise<string> {
  const u = await local.user({ plan: 'free' });
  return local.apiKey(u.id);
}

/**
 * Moves the clock to `at` (never back), uploads a book observed then and merges it. Callers keep books of one
 * key at least 5 minutes apart.
 */
export async function uploadAt(local: Local, key: string, at: number, listings: readonly Listing[], complete = true, market = MARKET): Promise<void> {
  if ((await local.now()) < at) await local.setClock(at);
  // Through the typed client (shared/client): an answer other than 200 throws its ApiError (status and code).
  await httpClient({ base: local.base, token: key }).uploadBook(bookOf(at, listings, complete, market));
  await local.settle();
}

/** Callers of each tier: anonymous (no token), free, contributor (window open) and premium sessions. */
export async function tierTokens(local: Local): Promise<{ anon: undefined; free: string; contributor: string; premium: string }> {
  const now = await local.now();
  const [free, contributor, premium] = await Promise.all([
    local.user({ plan: 'free' }),
    local.user({ plan: 'free', contributorUntil: now + 14 * DAY }),
    local.user({ plan: 'premium' }),
  ]);
  return {
    anon: undefined,
    free: await local.session(free.id, { expiresIn: 30 * 86_400 }),
    contributor: await local.session(contributor.id, { expiresIn: 30 * 86_400 }),
    premium: await local.session(premium.id, { expiresIn: 30 * 86_400 }),
  };
}
