import { describe, expect, it } from 'vitest';
import type { MarketAlert } from '../../shared/domain/alerts';
import type { PushState } from '../../shared/ports/settings';
import { PUSH_WINDOW_MS, type PushMessage, planPush } from '../../shared/push/window';

const T = 1_800_000_000_000;
const a = (id: string): MarketAlert => ({
  market: 'forever.normal.alliance.us',
  item: 1,
  kind: 'below',
  value: 1,
  enabled: true,
  id,
  created: 0,
  armed: false,
  last: null,
});
const fresh: PushState = { lastSent: null, pending: [], pendingCount: 0, flushAt: null, rev: 0 };
const alerts = (...ids: string[]): PushMessage => ({ t: 'alerts', userId: 'u', alerts: ids.map(a) });
const flush: PushMessage = { t: 'flush', userId: 'u' };
/** Applies a plan's state the way the dispatcher stores it. */
const apply = (s: PushState, p: ReturnType<typeof planPush>): PushState => (p.next ? { ...p.next, rev: s.rev + 1 } : s);

describe('the 30 s push window', () => {
  it('sends the alerts of one merge at once, as one, when the window is open', () => {
    const p = planPush(fresh, alerts('x', 'y'), T);
    expect(p.send).toEqual({ alerts: [a('x'), a('y')], count: 2, waited: false });
    expect(p.next).toEqual({ lastSent: T, pending: [], pendingCount: 0, flushAt: null });
    expect(p.flushInMs).toBeNull();
  });

  it('holds alerts inside the window and queues one flush for its end', () => {
    let s = apply(fresh, planPush(fresh, alerts('x'), T));
    const second = planPush(s, alerts('y'), T + 10_000);
    expect(second.send).toBeNull();
    expect(second.flushInMs).toBe(20_000);
    s = apply(s, second);
    const third = planPush(s, alerts('z'), T + 20_000);
    expect(third.send).toBeNull();
    expect(third.flushInMs).toBeNull();
    s = apply(s, third);
    expect(s).toMatchObject({ pendingCount: 2, flushAt: T + PUSH_WINDOW_MS });
    const out = planPush(s, flush, T + PUSH_WINDOW_MS);
    expect(out.send).toEqual({ alerts: [a('y'), a('z')], count: 2, waited: true });
    expect(out.next).toEqual({ lastSent: T + PUSH_WINDOW_MS, pending: [], pendingCount: 0, flushAt: null });
  });

  it('sends at once again exactly 30 s after the last push', () => {
    const s = apply(fresh, planPush(fresh, alerts('x'), T));
    expect(planPush(s, alerts('y'), T + PUSH_WINDOW_MS - 1).send).toBeNull();
    expect(planPush(s, alerts('y'), T + PUSH_WINDOW_MS).send?.waited).toBe(false);
  });

  it('an early flush waits for the rest of the window', () => {
    let s = apply(fresh, planPush(fresh, alerts('x'), T));
    s = apply(s, planPush(s, alerts('y'), T + 1000));
    const early = planPush(s, flush, T + 29_000);
    expect(early.send).toBeNull();
    expect(early.flushInMs).toBe(1000);
  });

  it('a repeated flush finds nothing to send', () => {
    const s: PushState = { lastSent: T, pending: [], pendingCount: 0, flushAt: null, rev: 3 };
    expect(planPush(s, flush, T + PUSH_WINDOW_MS)).toEqual({ next: null, send: null, flushInMs: null });
  });

  it('takes waiting alerts along when their flush was lost', () => {
    const s: PushState = { lastSent: T, pending: [a('x')], pendingCount: 1, flushAt: T + PUSH_WINDOW_MS, rev: 2 };
    const p = planPush(s, alerts('y'), T + PUSH_WINDOW_MS + 60_000);
    expect(p.send).toEqual({ alerts: [a('x'), a('y')], count: 2, waited: true });
  });
});
