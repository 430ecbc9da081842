/**
 * Web Push routes (spec: "Web Push (signed in)"). Writes answer 503 `push_unconfigured` before any other
 * check of theirs when no VAPID key is configured (DESIGN: check order). The api function holds only the
 * public key (`vapidPublic`); the push function, which signs, holds the pair.
 */
import { requireSignedIn } from '../auth/gate';
import { type PushPrefs, SUBSCRIPTIONS_MAX } from '../domain/push-subscription';
import { UnavailableError } from '../errors';
import type { Route, RoutesOf } from '../http/handler';
import { ok } from '../http/respond';
import type { Services } from '../services';
import { DeleteSubscriptionBody, putSubscriptionBody } from './push.schemas';
import { jsonBody } from './settings';
import { parseAs } from './zod-parse';

const requirePush = (svc: Pick<Services, 'config'>): void => {
  if (!svc.config.vapidPublicKey) throw new UnavailableError('push_unconfigured', 'push is not set up on this deployment');
};

/** GET /api/v1/push/key: the VAPID public key, or null when push is off. */
export const getPushKey: Route = {
  access: { kind: 'signedIn' },
  async handle({ svc }) {
    return ok({ publicKey: svc.config.vapidPublicKey || null });
  },
};

/** GET /api/v1/push/subscription: the caller's own subscriptions. */
export const getPushSubscriptions: Route = {
  access: { kind: 'signedIn' },
  async handle({ svc, principal: p }) {
    requireSignedIn(p);
    const subs = await svc.settings.listSubscriptions(p.userId);
    return ok({ subscriptions: subs.map(({ endpoint, prefs, created }) => ({ endpoint, prefs, created })) });
  },
};

/** PUT /api/v1/push/subscription {subscription, prefs?}: subscribes (taking the endpoint over) or replaces prefs; 10 per account. */
export const putPushSubscription: Route = {
  access: { kind: 'signedIn' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    requirePush(svc);
    const body = parseAs(putSubscriptionBody(svc.config.push), jsonBody(req), 'bad_request');
    const sub = body.subscription;
    // Absent: the stored prefs stay; null: none.
    const prefs: PushPrefs | undefined = body.prefs === undefined ? undefined : (body.prefs ?? {});
    const stored = await svc.settings.putSubscription(p.userId, sub, prefs, svc.clock.now(), SUBSCRIPTIONS_MAX);
    return ok({ subscription: { endpoint: stored.endpoint, prefs: stored.prefs, created: stored.created } });
  },
};

/** DELETE /api/v1/push/subscription {endpoint}: `{deleted}` (own subscriptions only). */
export const deletePushSubscription: Route = {
  access: { kind: 'signedIn' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    requirePush(svc);
    const { endpoint } = parseAs(DeleteSubscriptionBody, jsonBody(req), 'bad_request');
    return ok({ deleted: await svc.settings.deleteSubscription(p.userId, endpoint) });
  },
};

/** The push routes by route key (shared/topology.ts). */
export const pushRoutes = {
  'GET /api/v1/push/key': getPushKey,
  'GET /api/v1/push/subscription': getPushSubscriptions,
  'PUT /api/v1/push/subscription': putPushSubscription,
  'DELETE /api/v1/push/subscription': deletePushSubscription,
} satisfies RoutesOf<'api'>;
