/**
 * The push function's work for one queue message: apply the account's 30 s window, then deliver to every
 * subscription that wants `market` and is outside its quiet hours (held pushes are dropped, not queued).
 * A 404 / 410 from the push service deletes the subscription; any other failure is dropped. Subscriptions
 * whose endpoint the deployment no longer accepts are deleted unsent.
 */
// zod/mini: the push function parses only this message (full zod would weigh on its cold start).
import * as z from 'zod/mini';
import type { MarketAlert } from '../domain/alerts';
import { notificationFor } from '../domain/push-message';
import { endpointAllowed, inQuietHours, wantsMarket } from '../domain/push-subscription';
import { parseBody } from '../ports/queues';
import type { Services } from '../services';
import { metric } from '../telemetry/function-telemetry';
import { METRIC } from '../telemetry/metric-names';
import { type DeliveryOutcome, deliver } from './deliver';
import { enqueuePush } from './enqueue';
import { type PushMessage, planPush } from './window';

const STATE_ATTEMPTS = 5;

/** The push queue's message: an account's fired alerts (as the merge stored them), or the flush closing its window. */
const PushMessageSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('flush'), userId: z.string().check(z.minLength(1)) }),
  z.object({
    t: z.literal('alerts'),
    userId: z.string().check(z.minLength(1)),
    alerts: z.array(z.custom<MarketAlert>((a) => typeof a === 'object' && a !== null && !Array.isArray(a))),
  }),
]);

/** Parses a queue body; null for anything that is not a push message (logged and dropped by the caller). */
export function parsePushMessage(body: string): PushMessage | null {
  return parseBody(PushMessageSchema, body);
}

/** Handles one push message; throws only when storage fails (the queue retries). */
export async function handlePushMessage(
  svc: Pick<Services, 'config' | 'clock' | 'queues' | 'settings' | 'log'>,
  msg: PushMessage,
  send: typeof fetch = fetch,
): Promise<DeliveryOutcome[]> {
  const vapid = svc.config.vapid;
  if (!vapid) return [];
  const stored = await svc.settings.listSubscriptions(msg.userId);
  // A subscription stored before the endpoint rule narrowed is never sent to: it is forgotten instead.
  const refused = stored.filter((s) => !endpointAllowed(s.endpoint, svc.config.push));
  await Promise.all(refused.map((s) => svc.settings.deleteSubscription(msg.userId, s.endpoint)));
  const wanting = stored.filter((s) => wantsMarket(s.prefs) && endpointAllowed(s.endpoint, svc.config.push));
  // An account nobody would hear opens no window (a flush still runs, to clear what waited).
  if (wanting.length === 0 && msg.t === 'alerts') return [];
  for (let attempt = 0; attempt < STATE_ATTEMPTS; attempt++) {
    const now = svc.clock.now();
    const state = await svc.settings.getPushState(msg.userId);
    const plan = planPush(state, msg, now);
    if (plan.next && !(await svc.settings.putPushState(msg.userId, { ...plan.next, rev: state.rev }, now))) continue;
    if (plan.flushInMs !== null) await enqueuePush(svc, [{ t: 'flush', userId: msg.userId }], plan.flushInMs);
    if (!plan.send) return [];
    const payload = notificationFor(plan.send.alerts, plan.send.count, plan.send.waited, now);
    const subs = wanting.filter((s) => !inQuietHours(s.prefs, now));
    const outcomes = await Promise.all(subs.map((s) => deliver(s, payload, vapid, send)));
    await Promise.all(
      outcomes.map(async (o, i) => {
        if (o.kind === 'gone') await svc.settings.deleteSubscription(msg.userId, subs[i].endpoint);
        else if (o.kind === 'failed') svc.log('warn', 'push dropped', { reason: o.reason });
      }),
    );
    metric(METRIC.pushSent, outcomes.filter((o) => o.kind === 'sent').length);
    metric(METRIC.pushFailed, outcomes.filter((o) => o.kind !== 'sent').length);
    return outcomes;
  }
  throw new Error('push window state kept changing under this delivery');
}
