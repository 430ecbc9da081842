/**
 * The service worker's pure rules (issue 24 point 6; spec Events: push notification rules): the payload
 * `{v: 1, kind, title, body, tag, url, ts}` read from a push, and which page a notification's click opens.
 * The payload's `url` is a site path (`/item/<key>?m=…`, `/#/market/alerts` for a group, `/market/alerts` for
 * a whole-market deal, which is the app's hash route); anything that is not a path of this site opens the
 * alerts page, never another origin. Only app/sw.ts imports this module, so the worker is one file.
 */

export const ALERTS_PAGE = '/#/market/alerts';

/** The payload the service sends (spec: `{v: 1, kind, title, body, tag, url, ts}`). */
export interface PushPayload {
  v: 1;
  kind: 'market' | 'group';
  title: string;
  body: string;
  tag: string;
  url: string;
  ts: number;
}

/** The payload of a push event's text, or null when it is not one (a push of another sender, a test ping). */
export function parsePayload(text: string): PushPayload | null {
  try {
    const p = JSON.parse(text) as Partial<PushPayload>;
    if (p.v !== 1 || typeof p.title !== 'string' || typeof p.url !== 'string') return null;
    return {
      v: 1,
      kind: p.kind === 'group' ? 'group' : 'market',
      title: p.title,
      body: String(p.body ?? ''),
      tag: String(p.tag ?? ''),
      url: p.url,
      ts: Number(p.ts ?? 0),
    };
  } catch {
    return null;
  }
}

/** The absolute URL a click on the notification opens, at `origin`. */
export function openUrlOf(url: string, origin: string): string {
  // A path of this site only: `//host` and `/\host` are other origins to a browser.
  if (!url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\')) return `${origin}${ALERTS_PAGE}`;
  if (url === '/market/alerts' || url.startsWith('/market/alerts?')) return `${origin}${ALERTS_PAGE}`;
  const target = new URL(url, origin);
  return target.origin === origin ? target.href : `${origin}${ALERTS_PAGE}`;
}
