/**
 * The website at the origin (issue 24 points 1, 2, 11), over real HTTP against the local runtime: the
 * server-rendered pages load the app's build, served at `/assets/` as immutable; unknown paths answer a 404
 * page to browsers and JSON elsewhere (never the app); app routes stay out of the sitemap; the local identity
 * provider's sign-in page sets the `__session` cookie the API reads, sign-out clears it, and its API-key
 * routes act for the signed-in user only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0';

describe('the website at the origin', () => {
  let local: Local;
  let ip = 0;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${local.base}${path}`, { headers: { 'x-forwarded-for': `198.51.100.${++ip % 250}`, ...headers }, redirect: 'manual' });
  const entryOf = (html: string): string | undefined => /<script type="module" src="(\/assets\/main-[^"]+\.js)" defer><\/script>/.exec(html)?.[1];

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    await local?.close();
  });

  it('loads the app’s entry script as a deferred module from the home and item pages; Markdown carries none', async () => {
    for (const path of ['/', '/item/2589', '/item/2589/linen-cloth']) {
      const res = await get(path, { accept: HTML });
      expect(res.status, path).toBe(200);
      expect(entryOf(await res.text()), path).toBeDefined();
    }
    const md = await get('/item/2589', { accept: 'text/markdown' });
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(await md.text()).not.toContain('/assets/');
  });

  it('serves the build’s files at /assets/ as immutable JavaScript, gzip when accepted, and 404 for any other name', async () => {
    const entry = entryOf(await (await get('/')).text()) ?? '';
    const plain = await get(entry);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const code = await plain.text();
    expect(code.length).toBeGreaterThan(1000);
    const zipped = await fetch(`${local.base}${entry}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(await zipped.text()).toBe(code);
    for (const path of ['/assets/nope-123.js', '/assets/../package.json', '/assets/.vite/manifest.json', '/assets/%2e%2e/vite.config.ts'])
      expect((await get(path)).status, path).toBe(404);
  });

  it('answers an unknown path with an HTML 404 page (no app) to browsers, and JSON not_found elsewhere and under /api/', async () => {
    const page = await get('/account', { accept: HTML });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>Not found (404)</h1>');
    expect(entryOf(html)).toBeUndefined();
    for (const [path, headers] of [
      ['/account', {}],
      ['/pair', { accept: 'application/json' }],
      ['/login', { accept: 'text/markdown, text/html;q=0' }],
      ['/api/v1/nothing-here', { accept: HTML }],
    ] as const) {
      const res = await get(path, headers);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toMatchObject({ error: 'not_found' });
    }
  });

  it('leaves the app’s hash routes out of the sitemap', async () => {
    const sitemap = await (await get('/sitemap.xml')).text();
    expect(sitemap).toContain('<urlset');
    expect(sitemap).not.toMatch(/#\/|account|devices/);
  });
});

describe('the local identity provider’s pages for the website', () => {
  let local: Local;
  const idp = (path: string, init: RequestInit = {}) => fetch(`${local.base}/_local/idp${path}`, { redirect: 'manual', ...init });
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    idp('/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: local.base, 'user-agent': BROWSER, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const cookieOf = (res: Response): string => (res.headers.get('set-cookie') ?? '').split(';')[0];

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    await local?.close();
  });

  it('shows a form with one field labelled Email and a Sign in button, returning to the given path', async () => {
    const res = await idp(`/sign-in?redirect=${encodeURIComponent('/#/devices/confirm?code=AB')}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<label for="email">Email<\/label>\s*<input id="email" name="email" type="email"/);
    expect(html).toContain('<button type="submit" class="primary">Sign in</button>');
    expect(html).toContain('value="/#/devices/confirm?code=AB"');
    expect(html.match(/<input /g)).toHaveLength(2); // the e-mail and the hidden redirect
  });

  it('signs in as the newest user with that e-mail, sets an HttpOnly __session the API accepts, and returns to the path', async () => {
    const premium = await local.user({ email: 'Someone@Example.test', plan: 'premium' });
    const res = await form({ email: 'someone@example.test', redirect: '/#/account' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/#/account');
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__session=ey[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const me = await local.api('GET', '/api/v1/me', { headers: { cookie: cookieOf(res) } });
    expect(me.body.user).toEqual({ id: premium.id, email: 'Someone@Example.test' });
    expect(me.body.roles).toContain('premium');
  });

  it('makes a free user for an e-mail it does not know', async () => {
    const res = await form({ email: 'new-person@example.test', redirect: '/' });
    const me = await local.api('GET', '/api/v1/me', { headers: { cookie: cookieOf(res) } });
    expect(me.body.user.email).toBe('new-person@example.test');
    expect(me.body.roles).toEqual(['free']);
  });

  it('returns only to a path of this site, and asks again for a missing address', async () => {
    for (const redirect of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)'])
      expect((await form({ email: 'a@example.test', redirect })).headers.get('location'), redirect).toBe('/');
    const bad = await form({ email: 'not an address', redirect: '/#/account' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('set-cookie')).toBeNull();
    expect(await bad.text()).toContain('Type an e-mail address');
  });

  it('refuses a browser’s form that names no Origin, and one from another site', async () => {
    const noOrigin = await fetch(`${local.base}/_local/idp/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER },
      body: 'email=a%40example.test&redirect=%2F',
    });
    expect(noOrigin.status).toBe(415);
    const foreign = await form({ email: 'a@example.test', redirect: '/' }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();
  });

  it('clears the cookie on sign-out', async () => {
    const res = await idp('/sign-out', { method: 'POST', headers: { origin: local.base, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBe('__session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });

  it('creates, lists and revokes API keys of the signed-in user only, writes needing the site’s Origin', async () => {
    const cookie = cookieOf(await form({ email: 'keys@example.test', redirect: '/' }));
    const other = cookieOf(await form({ email: 'other@example.test', redirect: '/' }));
    const json = { 'content-type': 'application/json', origin: local.base };
    expect((await idp('/api-keys')).status).toBe(401);
    expect((await idp('/api-keys', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{"name":"x"}' })).status).toBe(403);
    expect((await idp('/api-keys', { method: 'POST', headers: { cookie, ...json }, body: '{"name":""}' })).status).toBe(400);
    const made = (await (await idp('/api-keys', { method: 'POST', headers: { cookie, ...json }, body: '{"name":"sheet"}' })).json()) as {
      key: { id: string; name: string; created: number; revoked: boolean; secret: string };
    };
    expect(made.key).toMatchObject({ name: 'sheet', revoked: false });
    expect(made.key.secret).toMatch(/^ak_/);
    const me = await local.api('GET', '/api/v1/me', { token: made.key.secret });
    expect(me.body.user.email).toBe('keys@example.test');
    const listed = (await (await idp('/api-keys', { headers: { cookie } })).json()) as { keys: unknown[] };
    expect(listed.keys).toEqual([{ id: made.key.id, name: 'sheet', created: made.key.created, revoked: false }]);
    expect(JSON.stringify(listed)).not.toContain(made.key.secret);
    expect(((await (await idp('/api-keys', { headers: { cookie: other } })).json()) as { keys: unknown[] }).keys).toEqual([]);
    // Another user cannot revoke it; its owner can, and the provider then refuses it.
    expect((await idp(`/api-keys/${made.key.id}/revoke`, { method: 'POST', headers: { cookie: other, ...json }, body: '{}' })).status).toBe(404);
    expect((await idp(`/api-keys/${made.key.id}/revoke`, { method: 'POST', headers: { cookie, ...json }, body: '{}' })).status).toBe(200);
    await local.advance(6 * 60_000); // past the service's 5-minute cache of a verified key
    expect((await local.api('GET', '/api/v1/me', { token: made.key.secret })).status).toBe(401);
  });
});
