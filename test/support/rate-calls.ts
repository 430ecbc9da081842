/**
 * Requests against the rate limits of a local runtime (test/integration/identity-rate*.test.ts): bursts of
 * them, their statuses counted, the spec's refusal checked, each test at the top of a fresh minute.
 */
import { expect } from 'vitest';
import type { Local } from './local';

export const MINUTE = 60_000;

/** Counts the statuses equal to `status`. */
export const count = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length;

/** The calls on the runtime `local()` answers (it is started in a `beforeAll`, after these are made). */
export function rateCalls(local: () => Local) {
  /**
   * `n` requests in waves of 50 at once: concurrent enough that the counter must be atomic, few enough that a
   * loaded 2-core machine answers each well within the gateway's limits (the manual clock holds the minute).
   */
  const burst = async (n: number, path: string, headers: Record<string, string>): Promise<number[]> => {
    const statuses: number[] = [];
    for (let sent = 0; sent < n; sent += 50) {
      const wave = Math.min(50, n - sent);
      statuses.push(...(await Promise.all(Array.from({ length: wave }, async () => (await fetch(`${local().base}${path}`, { headers })).status))));
    }
    return statuses;
  };
  /** The next request on `headers` is refused as the spec says: 429 `rate_limited`, `Retry-After: 60`. */
  const expectRefused = async (path: string, headers: Record<string, string>): Promise<void> => {
    const res = await fetch(`${local().base}${path}`, { headers });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await res.json()).toMatchObject({ error: 'rate_limited' });
  };
  /** Starts a test at the top of a fresh minute, so no counter is shared with another test. */
  const nextMinute = async (): Promise<void> => {
    const now = await local().now();
    await local().setClock((Math.floor(now / MINUTE) + 1) * MINUTE);
  };
  return { burst, expectRefused, nextMinute };
}
