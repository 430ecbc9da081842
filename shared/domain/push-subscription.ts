/**
 * Web Push subscriptions and their prefs (spec: "Web Push", PushPrefs; DESIGN: PushPrefs shape, local
 * endpoints). Pure: the endpoint rule (issue 11: known push services only), key and zone checks the body schema
 * (shared/api/push.schemas.ts) uses, and quiet hours.
 */
/** PushPrefs: `market` (default true) and `quietHours` matter here; other fields are kept as given. */
export interface PushPrefs {
  market?: boolean;
  quietHours?: { start: string; end: string; tz: string } | null;
  [field: string]: unknown;
}

/** What a browser's `PushSubscription.toJSON()` gives, as far as delivery needs it. */
export interface BrowserSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** A stored subscription as the account sees it. */
export interface PushSubscriptionView {
  endpoint: string;
  prefs: PushPrefs;
  created: number;
}

export const SUBSCRIPTIONS_MAX = 10;
export const ENDPOINT_MAX = 2048;
export const PREFS_MAX_BYTES = 4096;
/** `HH:MM`, 00:00 to 23:59. */
export const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * The push services browsers subscribe through (issue 11, point 4): Chrome, Opera, Samsung Internet and other
 * Chromium browsers use FCM, Firefox Mozilla's autopush, Safari Apple's, Edge Windows Push (WNS). `*.` stands
 * for exactly one DNS label.
 */
export const PUSH_SERVICE_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  '*.push.services.mozilla.com',
  'web.push.apple.com',
  '*.push.apple.com',
  '*.notify.windows.com',
];

/** Which endpoints a deployment accepts: its push service hosts, and loopback http receivers only in the local runtime. */
export interface EndpointRule {
  hosts: readonly string[];
  loopback: boolean;
}

const LABEL = /^[a-z0-9-]+$/;
const IPV4_LITERAL = /^[0-9.]+$/;

const hostMatches = (host: string, pattern: string): boolean => {
  if (!pattern.startsWith('*.')) return host === pattern;
  const suffix = pattern.slice(1);
  return host.endsWith(suffix) && LABEL.test(host.slice(0, -suffix.length));
};

/**
 * Spec Web Push endpoints, narrowed: https on a known push service's host on the default port, never an IP
 * literal nor credentials; `http://127.0.0.1[:port]` and `http://localhost[:port]` only where the rule allows
 * loopback (the local runtime, whose tests run their own receivers).
 */
export function endpointAllowed(endpoint: string, rule: EndpointRule): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'http:') return rule.loopback && (host === '127.0.0.1' || host === 'localhost');
  if (url.protocol !== 'https:' || url.port !== '') return false;
  if (host.startsWith('[') || IPV4_LITERAL.test(host)) return false;
  return rule.hosts.some((pattern) => hostMatches(host, pattern.toLowerCase()));
}

/** The bytes of a base64url value (padding allowed), or null when it is none. */
export function keyBytes(v: unknown): Buffer | null {
  if (typeof v !== 'string' || !B64URL.test(v)) return null;
  return Buffer.from(v.replace(/=+$/, ''), 'base64url');
}

/** Whether `tz` is an IANA time zone this runtime knows. */
export function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Whether the subscription wants alert pushes (`market`, default true). */
export const wantsMarket = (prefs: PushPrefs): boolean => prefs.market !== false;

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Minutes since local midnight at `now` in zone `tz`. */
function localMinutes(now: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0) % 24;
  return hour * 60 + Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
}

/**
 * Whether `now` falls in the quiet hours: start inclusive, end exclusive, across midnight when end < start;
 * equal start and end is an empty window. A zone that no longer resolves never silences.
 */
export function inQuietHours(prefs: PushPrefs, now: number): boolean {
  const q = prefs.quietHours;
  if (!q || !HHMM.test(q.start) || !HHMM.test(q.end)) return false;
  let m: number;
  try {
    m = localMinutes(now, q.tz);
  } catch {
    return false;
  }
  const s = minutesOf(q.start);
  const e = minutesOf(q.end);
  if (s === e) return false;
  return s < e ? m >= s && m < e : m >= s || m < e;
}
