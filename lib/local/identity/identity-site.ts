/**
 * The local identity provider's pages for the website (DESIGN "Local contract of the site"), where Clerk's
 * hosted pages and browser library stand on AWS: `GET /_local/idp/sign-in?redirect=<path>` shows a form with
 * one field labelled "Email" and a button "Sign in"; posting it signs in as the newest user with that e-mail
 * (a free user is made when there is none), sets the `__session` cookie the spec names and returns to
 * `<path>`. `POST /sign-out` clears the cookie; `/api-keys` lists, makes and revokes the signed-in user's API
 * keys (the account page's, as Clerk's `apiKeys` do on AWS).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml, htmlDocument } from '../../../shared/pages/render';

/** The session the sign-in page sets lasts this long (Clerk refreshes its own short tokens; this one is simply long). */
export const SIGN_IN_SECONDS = 8 * 3600;
const COOKIE = '__session';
const EMAIL_MAX = 254;
const KEY_NAME_MAX = 60;

/** Whether a path under `/_local/idp` is one of the site's pages. */
export const isSitePath = (path: string): boolean => path === '/sign-in' || path === '/sign-out' || path === '/api-keys' || path.startsWith('/api-keys/');

/** Where a sign-in may return: a path of this site (`/…`), never another host (`//host`, `/\host`) or scheme. */
export function safeRedirect(target: unknown): string {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  // No control characters (a header line break, a tab that browsers strip): they never belong in a path.
  return [...target].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ? '/' : target;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
  return true;
}

function signInPage(res: ServerResponse, status: number, redirect: string, email = '', problem = ''): true {
  const body = [
    '<main>',
    '<h1>Sign in</h1>',
    '<p class="sub">The local identity provider: any e-mail address signs in (a free account is made for a new one). The demo’s premium user is <code>demo@localhost</code>.</p>',
    '<form method="post" action="/_local/idp/sign-in" class="card stack">',
    `<input type="hidden" name="redirect" value="${escapeHtml(redirect)}">`,
    '<div class="field"><label for="email">Email</label>',
    `<input id="email" name="email" type="email" required autocomplete="email" maxlength="${EMAIL_MAX}" value="${escapeHtml(email)}"${problem ? ' aria-describedby="problem" aria-invalid="true"' : ''}></div>`,
    problem ? `<p id="problem" class="status" data-tone="error" role="alert">${escapeHtml(problem)}</p>` : '',
    '<div class="actions"><button type="submit" class="primary">Sign in</button></div>',
    '</form>',
    '</main>',
  ].join('\n');
  const html = htmlDocument({
    title: 'Sign in',
    description: 'Sign in to the local runtime',
    url: '/_local/idp/sign-in',
    body,
    head: '<meta name="robots" content="noindex">',
  });
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
  return true;
}

/** The body of a sign-in post: the form's fields, or the same as JSON. */
function fieldsOf(req: IncomingMessage, body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    const v = text ? (JSON.parse(text) as unknown) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const cookieOf = (req: IncomingMessage): string | null => {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=') || null;
  }
  return null;
};

const sessionCookie = (token: string, maxAge: number): string => `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}`;

/** What the site asks of the provider (LocalIdentity in identity.ts, which serves the site: named here, not imported). */
export interface SiteIdentity {
  signInAs(email: string): Promise<string>;
  sessionToken(userId: string, expiresIn: number): Promise<string>;
  sessionUser(token: string): Promise<string | null>;
  keysOf(userId: string): Array<{ id: string; name: string; created: number; revoked: boolean }>;
  createKeyFor(userId: string, name: string): Promise<{ id: string; name: string; created: number; revoked: boolean; secret: string }>;
  revokeKeyOf(userId: string, id: string): Promise<boolean>;
}

/** Serves one of the site's pages of the provider (`path` below `/_local/idp`). */
export async function handleSite(idp: SiteIdentity, method: string, path: string, req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<true> {
  const url = new URL(req.url ?? '/', 'http://local');
  if (path === '/sign-in') {
    if (method === 'GET') return signInPage(res, 200, safeRedirect(url.searchParams.get('redirect')));
    if (method !== 'POST') return json(res, 405, { error: 'method_not_allowed' }, { allow: 'GET, POST' });
    const input = fieldsOf(req, body);
    const redirect = safeRedirect(input.redirect);
    const email = typeof input.email === 'string' ? input.email.trim() : '';
    if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > EMAIL_MAX)
      return signInPage(res, 400, redirect, email, 'Type an e-mail address, such as demo@localhost, then sign in.');
    const token = await idp.sessionToken(await idp.signInAs(email), SIGN_IN_SECONDS);
    res.writeHead(303, { location: redirect, 'set-cookie': sessionCookie(token, SIGN_IN_SECONDS), 'cache-control': 'no-store' });
    res.end();
    return true;
  }
  if (method === 'GET' ? false : req.headers.origin === undefined)
    // The spec's rule for a session's writes (api.md Authentication 3): browsers send Origin, pages elsewhere cannot forge it.
    return json(res, 403, { error: 'bad_origin', message: 'a session write needs the site’s Origin' });
  if (path === '/sign-out') {
    if (method !== 'POST') return json(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
    return json(res, 200, { signedOut: true }, { 'set-cookie': sessionCookie('', 0) });
  }
  const token = cookieOf(req);
  const userId = token ? await idp.sessionUser(token) : null;
  if (!userId) return json(res, 401, { error: 'unauthenticated', message: 'sign in first' });
  if (path === '/api-keys') {
    if (method === 'GET') return json(res, 200, { keys: idp.keysOf(userId) });
    if (method !== 'POST') return json(res, 405, { error: 'method_not_allowed' }, { allow: 'GET, POST' });
    const raw = fieldsOf(req, body).name;
    const name = typeof raw === 'string' ? raw.trim() : '';
    if (!name || name.length > KEY_NAME_MAX) return json(res, 400, { error: 'bad_request', message: `name must be 1 to ${KEY_NAME_MAX} characters` });
    return json(res, 200, { key: await idp.createKeyFor(userId, name) });
  }
  const revoke = /^\/api-keys\/([^/]+)\/revoke$/.exec(path);
  if (revoke && method === 'POST') {
    if (!(await idp.revokeKeyOf(userId, decodeURIComponent(revoke[1])))) return json(res, 404, { error: 'not_found', message: 'no such key of yours' });
    return json(res, 200, { revoked: true });
  }
  return json(res, revoke ? 405 : 404, revoke ? { error: 'method_not_allowed' } : { error: 'not_found' });
}
