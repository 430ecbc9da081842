/**
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (IETF draft httpapi-ratelimit-headers, the
 * three-field form) of a metered request: the caller's `apiPerMinute`, what is left of it in the current minute
 * window after this request (0 at the limit and beyond), and the seconds until that window ends.
 */
import { MINUTE_MS, minuteOf } from '../clock';

/** One counted request: the limit, the window's count including this request, and when it was counted. */
export interface Metered {
  limit: number;
  count: number;
  now: number;
}

/** The three fields for a counted request (Reset 1..60: the counter is keyed by the clock's minute). */
export function rateLimitHeaders(m: Metered): Record<string, string> {
  const reset = Math.max(1, Math.ceil(((minuteOf(m.now) + 1) * MINUTE_MS - m.now) / 1000));
  return {
    'ratelimit-limit': String(m.limit),
    'ratelimit-remaining': String(Math.max(0, m.limit - m.count)),
    'ratelimit-reset': String(reset),
  };
}
