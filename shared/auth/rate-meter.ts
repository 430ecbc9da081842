/**
 * `apiPerMinute` counted in the function, with places in the shared per-minute counter reserved in batches
 * (issue 15 point 6: one counter write per API read was a third of the read bill; issue 23 point 2: the
 * limit must hold however many containers a caller reaches).
 *
 * A container spends a caller's requests of a minute from places it reserved in the shared counter: one
 * conditional `ADD` takes `batch` places (fewer when the count it knows is within a batch of the limit), and
 * only while the counter is below the limit. Each place has its position in the minute (the counter's value
 * it was reserved at); a request is admitted on a place at or below the limit. When a reservation fails the
 * counter is at the limit, so the rest of the minute is refused in this container without another write
 * (the counter only grows within its minute). Requests that arrive while a reservation is on its way wait
 * for it rather than write their own.
 *
 * Tolerance (docs/interpretations.md: "Rate limits counted in the function"): every admitted request holds
 * a distinct place at or below the limit, so no more than the limit is ever admitted, whatever the number
 * of containers and the order of their writes. In one container the limit is exact: the count it knows is
 * the truth, so it reserves no place it cannot use. Over C containers a request can be refused before the
 * caller made the limit only while other containers hold places reserved but not yet spent: at most
 * `batch - 1` each, and those places stay usable by the caller's requests that reach those containers.
 * Writes: one per batch of requests, as before (the first request of a minute in a container reserves a
 * whole batch where it used to write alone), plus one refused reservation per container at the limit.
 */
import { minuteOf } from '../clock';

/** What the meter needs of the identity port: a conditional `ADD n` on the caller's minute counter. */
export interface RequestCounter {
  reserveCount(callerId: string, now: number, n: number, below: number): Promise<number | null>;
}

/** Places a container reserves at once in a caller's counter, for a limit: a tenth of it, 1 to 20. */
export const batchFor = (limit: number): number => Math.max(1, Math.min(20, Math.floor(limit / 10)));

interface Window {
  /** The counter's value after this container's last reservation (a lower bound of the truth). */
  known: number;
  /** The position of the next place this container holds, and how many it still holds. */
  next: number;
  left: number;
  /** A reservation failed or reached `fullAt` (the limit then): refuse what the places held do not cover. */
  full: boolean;
  fullAt: number;
  /** The reservation on its way, which requests arriving meanwhile wait for. */
  reserving: Promise<void> | null;
}

export class RateMeter {
  private minute = Number.NEGATIVE_INFINITY;
  private readonly windows = new Map<string, Window>();

  constructor(private readonly store: RequestCounter) {}

  /**
   * Counts one request of `callerId` at `now` against `limit`; answers the count the request is judged by:
   * its place in the minute (at most `limit`) when admitted, more than `limit` when refused.
   */
  async count(callerId: string, now: number, limit: number): Promise<number> {
    const minute = minuteOf(now);
    // Windows of past minutes are never consulted again: the shared counters are keyed by minute too.
    if (minute > this.minute) {
      this.windows.clear();
      this.minute = minute;
    }
    const id = `${callerId}#${minute}`;
    let w = this.windows.get(id);
    if (!w) {
      w = { known: 0, next: 0, left: 0, full: false, fullAt: limit, reserving: null };
      this.windows.set(id, w);
    }
    // A caller whose limit changed within the minute (a new plan) may reserve again against the new one.
    if (w.full && w.fullAt !== limit) w.full = false;
    for (;;) {
      if (w.left > 0) {
        w.left--;
        return w.next++;
      }
      if (w.full) return Math.max(w.known, limit) + 1;
      // Either wait for the reservation on its way or make one; then look again.
      w.reserving ??= this.reserve(w, callerId, now, limit).finally(() => {
        if (w) w.reserving = null;
      });
      await w.reserving;
    }
  }

  private async reserve(w: Window, callerId: string, now: number, limit: number): Promise<void> {
    // Never more than the limit leaves room for, as far as this container knows.
    const n = Math.max(1, Math.min(batchFor(limit), limit - w.known));
    const total = await this.store.reserveCount(callerId, now, n, limit);
    if (total === null) {
      w.full = true;
      w.fullAt = limit;
      return;
    }
    w.known = Math.max(w.known, total);
    // The places are total - n + 1 .. total; the first is at most the limit (the counter was below it).
    w.next = total - n + 1;
    w.left = Math.min(n, limit - w.next + 1);
    if (total >= limit) {
      w.full = true;
      w.fullAt = limit;
    }
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
