/**
 * One Web Push delivery (spec Events: RFC 8030 delivery, RFC 8291 `aes128gcm`, RFC 8292 VAPID). `web-push`
 * encrypts and signs (VAPID `exp` = wall clock + 12 h, since push services check real time); `fetch` sends,
 * because `sendNotification` speaks only https and local receivers are http.
 */
import webpush from 'web-push';
import type { PushPayload } from '../domain/push-message';
import type { BrowserSubscription } from '../domain/push-subscription';

export const PUSH_TTL_SECONDS = 3600;
const SEND_TIMEOUT_MS = 10_000;

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** `sent`; `gone` (404 / 410: the subscription must be deleted); `failed` (anything else: dropped). */
export type DeliveryOutcome = { kind: 'sent'; status: number } | { kind: 'gone'; status: number } | { kind: 'failed'; reason: string };

/** The request a push service receives: POST with TTL 3600, Urgency normal, aes128gcm body, `vapid t=…, k=…`. */
export function pushRequest(sub: BrowserSubscription, payload: PushPayload, vapid: VapidKeys): { url: string; headers: Record<string, string>; body: Buffer } {
  const details = webpush.generateRequestDetails(sub, JSON.stringify(payload), {
    vapidDetails: vapid,
    TTL: PUSH_TTL_SECONDS,
    urgency: 'normal',
    contentEncoding: 'aes128gcm',
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(details.headers)) {
    // fetch computes the length itself and refuses a caller's Content-Length.
    if (k.toLowerCase() !== 'content-length') headers[k] = String(v);
  }
  return { url: details.endpoint, headers, body: details.body as Buffer };
}

/** Sends one notification; never throws (a failed push is dropped, per spec). */
export async function deliver(sub: BrowserSubscription, payload: PushPayload, vapid: VapidKeys, send: typeof fetch = fetch): Promise<DeliveryOutcome> {
  try {
    const req = pushRequest(sub, payload, vapid);
    const res = await send(req.url, { method: 'POST', headers: req.headers, body: req.body, redirect: 'manual', signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status === 404 || res.status === 410) return { kind: 'gone', status: res.status };
    if (res.status >= 200 && res.status < 300) return { kind: 'sent', status: res.status };
    return { kind: 'failed', reason: `status ${res.status}` };
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
}
