/**
 * What a browser on another site could send to the control API (`/_local/…`) and the `@connections`
 * endpoint, refused. The `Host` check (lib/local/gateways/edge.ts) stops DNS rebinding, but a page on any site can
 * still POST to `http://127.0.0.1:PORT/_local/…` with the right `Host`: a form, or `fetch` in `no-cors` mode,
 * whose answer it never reads but whose effect (a user, a key, a fault, a clock jump) happens all the same.
 * Such a "simple" request can only carry `text/plain`, `application/x-www-form-urlencoded` or
 * `multipart/form-data`; `application/json` makes the browser ask first (a CORS preflight), which these
 * routes never grant (no `Access-Control-Allow-*` is ever answered), so the request is never sent. And a
 * browser names where a request comes from: `Origin` on every cross-origin POST, PATCH and DELETE (no-cors
 * included) and `Sec-Fetch-Site` on every request, neither of which a page can set or remove.
 *
 * Scripts (Node's fetch, curl, the tests) send neither header, so they pass as before, whatever content
 * type they declare (the local contract's callers may post JSON as `text/plain`); a body-less POST
 * (`/_local/settle`, `/_local/tick`) needs no content type.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface Refusal {
  status: 403 | 415;
  error: 'cross_site' | 'unsupported_media_type';
  message: string;
}

/** `Sec-Fetch-Site` values a page of another origin causes (`same-origin` and `none`, typed by the user, pass). */
const FOREIGN_FETCH_SITES = ['cross-site', 'same-site'];

/**
 * Refuses a request a page of another origin sent: an `Origin` other than one of `ownOrigins` (`null`
 * included: sandboxed frames, `data:` pages, redirects), or a `Sec-Fetch-Site` that says another site.
 */
export function crossSiteRefusal(headers: IncomingHttpHeaders, ownOrigins: readonly string[]): Refusal | null {
  const origin = headers.origin;
  if (origin !== undefined && !ownOrigins.includes(String(origin).toLowerCase()))
    return { status: 403, error: 'cross_site', message: `requests from other origins are refused (Origin ${String(origin).slice(0, 100)})` };
  const site = String(headers['sec-fetch-site'] ?? '').toLowerCase();
  if (FOREIGN_FETCH_SITES.includes(site))
    return { status: 403, error: 'cross_site', message: `requests from other sites are refused (Sec-Fetch-Site ${site})` };
  return null;
}

/**
 * Whether a request bears a browser's marks: `Origin` (every cross-origin POST, PATCH and DELETE),
 * `Sec-Fetch-Site` or `Sec-Fetch-Dest` (every request of a current browser), or a browser's `User-Agent` (all begin with
 * `Mozilla/`, older ones that send neither header included). Scripts (Node's fetch, curl, the outside tests)
 * bear none.
 */
function fromBrowser(headers: IncomingHttpHeaders): boolean {
  if (headers.origin !== undefined) return true;
  // Not `Sec-Fetch-Mode`: Node's fetch sends that one too (`cors`), and only that one.
  if (headers['sec-fetch-site'] !== undefined || headers['sec-fetch-dest'] !== undefined) return true;
  return String(headers['user-agent'] ?? '').startsWith('Mozilla/');
}

/**
 * Refuses a browser's body that is not declared JSON: only `application/json` (any parameters) or no body at
 * all. A script's body is taken whatever it declares (Node's fetch sends a string as `text/plain`, curl's
 * `-d` as a form): a script can set any header it likes, so the type proves nothing there, while a page can
 * send a non-JSON type without a preflight, which is what this refusal is for.
 */
export function contentTypeRefusal(headers: IncomingHttpHeaders, bodyBytes: number): Refusal | null {
  if (bodyBytes === 0 || !fromBrowser(headers)) return null;
  const type = headers['content-type'];
  if (type === undefined) return null;
  const media = type.split(';')[0].trim().toLowerCase();
  if (media === 'application/json') return null;
  return {
    status: 415,
    error: 'unsupported_media_type',
    message: `the control API takes JSON bodies: send content-type application/json (not ${media.slice(0, 100) || 'an empty type'})`,
  };
}
