/**
 * `apiPerMinute` counted in the function, with the shared per-minute counter written in batches (issue 15
 * point 6: one counter write per API read was a third of the read bill).
 *
 * Each function container keeps, per caller and minute, what it last learned of the shared counter (`known`),
 * what it has written but not heard back (`inflight`) and what it admitted without writing (`pending`):
 * - a caller's first request of the minute in this container writes (it learns the shared count);
 * - later requests are counted here and written `batch` at a time (one `ADD n` of the whole batch);
 * - once the count could be within `batch` of the limit, every request writes and is judged on the shared
 *   count the write answers, as before; once the shared count is past the limit, the rest of the minute is
 *   refused here without a write (the counter only grows within its minute).
 *
 * Tolerance (README, Interpretations: "Rate limits counted in the function"): in one container the count is
 * exact (its own estimate is never below the truth). Requests of one caller in one minute spread over C
 * containers can be admitted up to (C - 1) x (batch - 1) past the limit, the batches other containers
 * admitted but had not yet written; never a request refused below it. `batch` is a tenth of the limit (1 to
 * 20), so each other container serving the caller that minute adds at most a tenth.
 */
import { minuteOf } from '../clock';

/** What the meter needs of the identity port: an atomic `ADD n` on the caller's minute counter. */
export interface RequestCounter {
  countRequest(callerId: string, now: number, n?: number): Promise<number>;
}

/** Requests counted in the function between two writes of a caller's counter, for a limit. */
export const batchFor = (limit: number): number => Math.max(1, Math.min(20, Math.floor(limit / 10)));

interface Window {
  known: number;
  inflight: number;
  pending: number;
}

export class RateMeter {
  private minute = Number.NEGATIVE_INFINITY;
  private readonly windows = new Map<string, Window>();

  constructor(private readonly store: RequestCounter) {}

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

const meters = new WeakMap<RequestCounter, RateMeter>();

/** The container's meter on a counter store (one per store: a local process may run several stages). */
export function rateMeter(store: RequestCounter): RateMeter {
  let m = meters.get(store);
  if (!m) {
    m = new RateMeter(store);
    meters.set(store, m);
  }
  return m;
}
