/**
 * This browser's Web Push subscription (issue 24 point 6): the service worker at `/sw.js` (scope `/`), the
 * browser's PushManager subscription made with the deployment's VAPID key (GET /api/v1/push/key), and the
 * service's record of it (PUT, DELETE /api/v1/push/subscription). Only standard browser APIs: the e2e test
 * stands in for the browser's push service (unreachable here) at PushManager's boundary and nowhere else.
 */
import type { HttpClient } from '../../shared/client/http-client';
import { keyBytes, type PushPrefs } from './prefs';

export const WORKER_URL = '/sw.js';

/** Why push cannot work in this browser, or null when it can. */
export function unsupported(): string | null {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window))
    return 'This browser cannot receive notifications: alerts still reach this page while it is open.';
  if (!isSecureContext) return 'Notifications need a secure (https) page: open the site over https.';
  return null;
}

/** The worker's registration (registered now when missing). */
export async function workerRegistration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (existing) return existing;
  await navigator.serviceWorker.register(WORKER_URL, { scope: '/' });
  return navigator.serviceWorker.ready;
}

/** This browser's current subscription, or null (none yet, or no worker registered). */
export async function currentSubscription(): Promise<PushSubscription | null> {
  const reg = await navigator.serviceWorker.getRegistration('/');
  return reg ? reg.pushManager.getSubscription() : null;
}

const asJson = (sub: PushSubscription): { endpoint: string; keys: { p256dh: string; auth: string } } => {
  const j = sub.toJSON() as { endpoint?: string; keys?: { p256dh?: string; auth?: string } };
  return { endpoint: j.endpoint ?? sub.endpoint, keys: { p256dh: j.keys?.p256dh ?? '', auth: j.keys?.auth ?? '' } };
};

export class PushRefused extends Error {}

/** Asks permission, subscribes with the VAPID key and tells the service (or replaces the prefs of an existing one). */
export async function subscribe(api: HttpClient, publicKey: string, prefs: PushPrefs): Promise<string> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new PushRefused('Notifications are blocked for this site: allow them in the browser’s site settings, then try again.');
  const reg = await workerRegistration();
  let sub = await reg.pushManager.getSubscription();
  if (!sub) {
    try {
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) as BufferSource });
    } catch {
      throw new PushRefused('The browser’s push service did not answer: try again later, or in another browser.');
    }
  }
  const body = asJson(sub);
  await api.putPushSubscription(body, prefs);
  return body.endpoint;
}

/** Changes the prefs of this browser's subscription (the service replaces them on PUT). */
export async function savePrefs(api: HttpClient, prefs: PushPrefs): Promise<void> {
  const sub = await currentSubscription();
  if (!sub) throw new PushRefused('This browser is not subscribed: turn notifications on first.');
  await api.putPushSubscription(asJson(sub), prefs);
}

/** Removes a subscription from the service, and from the browser when it is this browser's. */
export async function unsubscribe(api: HttpClient, endpoint: string): Promise<void> {
  await api.deletePushSubscription(endpoint);
  const sub = await currentSubscription();
  if (sub && sub.endpoint === endpoint) await sub.unsubscribe();
}
