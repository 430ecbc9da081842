/**
 * The notifications page's pure rules (issue 24 point 6; spec "Web Push (signed in)", PushPrefs): the prefs
 * form ↔ PushPrefs (`market`, `quietHours {start, end, tz}` or null), and the VAPID key as the bytes
 * `PushManager.subscribe` takes.
 */

/** The notification settings as the form holds them. */
export interface PrefsForm {
  market: boolean;
  quiet: boolean;
  start: string;
  end: string;
  tz: string;
}

/** A type, not an interface: the client's PushPrefs keeps other fields (an index signature) and takes this as one. */
export type PushPrefs = {
  market: boolean;
  quietHours: { start: string; end: string; tz: string } | null;
};

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The form → PushPrefs, or the sentence saying what to correct. `validZone` is the platform's check of an IANA zone. */
export function formToPrefs(form: PrefsForm, validZone: (tz: string) => boolean): { ok: true; prefs: PushPrefs } | { ok: false; error: string } {
  if (!form.quiet) return { ok: true, prefs: { market: form.market, quietHours: null } };
  if (!HHMM.test(form.start) || !HHMM.test(form.end)) return { ok: false, error: 'Enter quiet hours as times of day, for example 22:00 to 07:00.' };
  if (form.start === form.end) return { ok: false, error: 'Quiet hours need different start and end times.' };
  if (!validZone(form.tz)) return { ok: false, error: `“${form.tz}” is not a time zone: choose one such as Europe/Berlin.` };
  return { ok: true, prefs: { market: form.market, quietHours: { start: form.start, end: form.end, tz: form.tz } } };
}

/** Stored prefs → the form (defaults: market alerts on, no quiet hours, 22:00–07:00 in `zone` when turned on). */
export function prefsToForm(prefs: { market?: boolean; quietHours?: { start: string; end: string; tz: string } | null } | null, zone: string): PrefsForm {
  const q = prefs?.quietHours ?? null;
  return { market: prefs?.market ?? true, quiet: q !== null, start: q?.start ?? '22:00', end: q?.end ?? '07:00', tz: q?.tz ?? zone };
}

/** A VAPID public key (base64url, spec: `GET /api/v1/push/key`) as the bytes `applicationServerKey` takes. */
export function keyBytes(base64url: string): Uint8Array {
  const b64 = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
