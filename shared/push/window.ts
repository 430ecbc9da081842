/**
 * The push window (spec Events: "At most one push per account per 30 s. Alerts arriving inside that window
 * wait and go out together as one notification"). Pure: from the account's state and one queue message,
 * what to send now, what to remember, and when a flush is due.
 */
import type { MarketAlert } from '../domain/alerts';
import type { PushState } from '../ports/settings';

export const PUSH_WINDOW_MS = 30_000;
/** A flush this late was lost (e.g. its message failed for good): the next alerts take the waiting ones along. */
const LOST_FLUSH_MS = 60_000;

/** A push queue message: the alerts one merge fired for one account, or the end of an account's window. */
export type PushMessage = { t: 'alerts'; userId: string; alerts: MarketAlert[] } | { t: 'flush'; userId: string };

export interface PushPlan {
  /** The state to store before sending (null: nothing changes). */
  next: Omit<PushState, 'rev'> | null;
  /** What goes out now: the alerts (newest few), how many in all, and whether they waited (→ a group). */
  send: { alerts: MarketAlert[]; count: number; waited: boolean } | null;
  /** Queue a flush after this many ms. */
  flushInMs: number | null;
}

const cleared = (now: number): Omit<PushState, 'rev'> => ({ lastSent: now, pending: [], pendingCount: 0, flushAt: null });
const windowEnd = (s: Pick<PushState, 'lastSent'>): number => (s.lastSent === null ? Number.NEGATIVE_INFINITY : s.lastSent + PUSH_WINDOW_MS);

/** Plans one message against the account's push window at `now`. */
export function planPush(state: PushState, msg: PushMessage, now: number): PushPlan {
  if (msg.t === 'flush') {
    if (state.pendingCount === 0) {
      return { next: state.flushAt === null ? null : { ...state, flushAt: null }, send: null, flushInMs: null };
    }
    // Delays are whole seconds and queues may deliver early: wait out the rest of the window.
    if (now < windowEnd(state)) return { next: { ...state, flushAt: windowEnd(state) }, send: null, flushInMs: windowEnd(state) - now };
    return { next: cleared(now), send: { alerts: state.pending, count: state.pendingCount, waited: true }, flushInMs: null };
  }
  if (msg.alerts.length === 0) return { next: null, send: null, flushInMs: null };
  if (state.pendingCount === 0 && now >= windowEnd(state)) {
    return { next: cleared(now), send: { alerts: msg.alerts, count: msg.alerts.length, waited: false }, flushInMs: null };
  }
  const pending = [...state.pending, ...msg.alerts];
  const pendingCount = state.pendingCount + msg.alerts.length;
  if (state.flushAt !== null && now >= state.flushAt + LOST_FLUSH_MS) {
    return { next: cleared(now), send: { alerts: pending, count: pendingCount, waited: true }, flushInMs: null };
  }
  if (state.flushAt !== null) return { next: { ...state, pending, pendingCount }, send: null, flushInMs: null };
  const flushAt = Math.max(now, windowEnd(state));
  return { next: { ...state, pending, pendingCount, flushAt }, send: null, flushInMs: flushAt - now };
}
