/**
 * How long the live client waits before reconnecting: exponential in the attempt, capped, with jitter so that
 * the sockets a deploy or a network blip dropped all at once do not come back all at once. Pure.
 */

export interface BackoffOptions {
  /** The first wait's ceiling (default 500 ms). */
  initialDelayMs?: number;
  /** No wait is longer (default 30 s). */
  maxDelayMs?: number;
  /** Each attempt multiplies the ceiling by this (default 2). */
  factor?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialDelayMs: 500, maxDelayMs: 30_000, factor: 2 };

/**
 * The wait before attempt `attempt` (0 = the first retry): the ceiling `min(max, initial * factor^attempt)`,
 * of which half is always waited and the other half drawn with `random` in [0, 1) ("equal jitter": never a
 * burst of immediate retries, never two clients in step).
 */
export function backoffDelay(attempt: number, random: number, opts: BackoffOptions = {}): number {
  const { initialDelayMs, maxDelayMs, factor } = { ...DEFAULT_BACKOFF, ...opts };
  const ceiling = Math.min(maxDelayMs, initialDelayMs * factor ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}
