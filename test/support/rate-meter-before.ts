/**
 * The rate meter as it was before issue 23 point 2 (shared/auth/rate-meter.ts at main 3911235, its body
 * unchanged): batches written with an unconditional `ADD` after they were admitted. Kept only as the
 * yardstick test/unit/rate-meter.test.ts measures the new meter's counter writes (and overshoot) against.
 */
import { batchFor } from '../../shared/auth/rate-meter';
import { minuteOf } from '../../shared/clock';

/** What the old meter needed: an unconditional atomic `ADD n` on the caller's minute counter. */
export interface PlainCounter {
  countRequest(callerId: string, now: number, n?: number): Promise<number>;
}

interface Window {
  known: number;
  inflight: number;
  pending: number;
}

export class RateMeterBefore {
  private minute = Number.NEGATIVE_INFINITY;
  private readonly windows = new Map<string, Window>();

  constructor(private readonly store: PlainCounter) {}

  /** Counts one request of `callerId` at `now` against `limit`; answers the count the request is judged by. */
  async count(callerId: string, now: number, limit: number): Promise<number> {
    const minute = minuteOf(now);
    // Windows of past minutes are never consulted again: the shared counters are keyed by minute too.
    if (minute > this.minute) {
      this.windows.clear();
      this.minute = minute;
    }
    const id = `${callerId}#${minute}`;
    const fresh = !this.windows.has(id);
    const w = this.windows.get(id) ?? { known: 0, inflight: 0, pending: 0 };
    this.windows.set(id, w);
    const batch = batchFor(limit);
    // An upper bound of this container's view of the count, this request included.
    const estimate = w.known + w.inflight + w.pending + 1;
    if (w.known > limit) {
      w.pending++;
      return estimate;
    }
    if (!fresh && estimate <= limit - batch && w.pending + 1 < batch) {
      w.pending++;
      return estimate;
    }
    const n = w.pending + 1;
    w.pending = 0;
    w.inflight += n;
    let total: number;
    try {
      total = await this.store.countRequest(callerId, now, n);
    } catch (err) {
      // The batch this request carried was admitted: it is written with the next one.
      w.pending += n - 1;
      throw err;
    } finally {
      w.inflight -= n;
    }
    w.known = Math.max(w.known, total);
    return total;
  }
}
