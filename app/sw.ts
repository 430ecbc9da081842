/**
 * The site's service worker (issue 24 point 6), built by Vite to `/sw.js` at the origin's root so its scope
 * covers every page and the app's hash routes. It only handles Web Push: a push shows the notification the
 * service's payload describes (title, body, tag `ahf-market`, so a newer one replaces an older), and a click
 * opens its `url` (app/push/notification-rules.ts: the item page for one alert, `#/market/alerts` for a group or a
 * whole-market deal), in an open window of the site when there is one. It caches nothing: the site works
 * the same without it.
 */
import { openUrlOf, parsePayload } from './push/notification-rules';

declare const self: ServiceWorkerGlobalScope;

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  const payload = event.data ? parsePayload(event.data.text()) : null;
  if (!payload) return;
  event.waitUntil(
    self.registration.showNotification(payload.title, {
      body: payload.body,
      tag: payload.tag || 'ahf-market',
      data: { url: payload.url, kind: payload.kind, ts: payload.ts },
    }),
  );
});

async function open(url: string): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const mine = windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (mine) {
    const moved = await mine.navigate(url).catch(() => null);
    await (moved ?? mine).focus().catch(() => undefined);
    if (moved) return;
  }
  await self.clients.openWindow(url);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = openUrlOf(String((event.notification.data as { url?: unknown } | null)?.url ?? ''), self.location.origin);
  // Started before waitUntil, which only keeps the worker alive until the page is open.
  const opened = open(url);
  event.waitUntil(opened);
});
