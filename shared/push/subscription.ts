/**
 * Web Push subscriptions and their prefs (spec: "Web Push", PushPrefs; DESIGN: PushPrefs shape, local
 * endpoints). Pure: body validation, the endpoint rule (issue 11: known push services only) and quiet hours.
 */
import { type DomainError, ValidationError } from '../errors';

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
const ENDPOINT_MAX = 2048;
const PREFS_MAX_BYTES = 4096;
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

const bad = (message: string): DomainError => new ValidationError('bad_request', message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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

function keyBytes(v: unknown): Buffer | null {
  if (typeof v !== 'string' || !B64URL.test(v)) return null;
  return Buffer.from(v.replace(/=+$/, ''), 'base64url');
}

/** Spec PushSubscriptionJSON: an allowed endpoint, a P-256 public key (65 bytes, uncompressed) and a 16-byte auth secret. */
export function parseSubscription(raw: unknown, rule: EndpointRule): BrowserSubscription {
  if (!isObject(raw)) throw bad('`subscription` must be a PushSubscriptionJSON object');
  const { endpoint, keys } = raw;
  if (typeof endpoint !== 'string' || endpoint.length > ENDPOINT_MAX || !endpointAllowed(endpoint, rule)) {
    throw bad(`\`endpoint\` must be an https URL of a browser push service${rule.loopback ? ', or http://127.0.0.1 or http://localhost' : ''}`);
  }
  if (!isObject(keys)) throw bad('`subscription.keys` must hold p256dh and auth');
  const p256dh = keyBytes(keys.p256dh);
  const auth = keyBytes(keys.auth);
  if (p256dh?.length !== 65 || p256dh[0] !== 0x04) throw bad('`keys.p256dh` must be an uncompressed P-256 public key (base64url)');
  if (auth?.length !== 16) throw bad('`keys.auth` must be a 16-byte secret (base64url)');
  return { endpoint, keys: { p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') } };
}

function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** PushPrefs (DESIGN): `market` boolean, `quietHours` `{start, end: "HH:MM", tz: IANA zone}` or null; the rest kept. */
export function parsePrefs(raw: unknown): PushPrefs {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw bad('`prefs` must be an object');
  if (new TextEncoder().encode(JSON.stringify(raw)).length > PREFS_MAX_BYTES) throw bad(`\`prefs\` must be at most ${PREFS_MAX_BYTES} bytes of JSON`);
  if (raw.market !== undefined && typeof raw.market !== 'boolean') throw bad('`prefs.market` must be a boolean');
  const q = raw.quietHours;
  if (q !== undefined && q !== null) {
    if (!isObject(q)) throw bad('`prefs.quietHours` must be {start, end, tz}');
    if (typeof q.start !== 'string' || !HHMM.test(q.start) || typeof q.end !== 'string' || !HHMM.test(q.end)) {
      throw bad('`prefs.quietHours.start` and `end` must be "HH:MM"');
    }
    if (typeof q.tz !== 'string' || !validZone(q.tz)) throw bad('`prefs.quietHours.tz` must be an IANA time zone');
  }
  return { ...raw } as PushPrefs;
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
