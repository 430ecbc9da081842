/**
 * The local identity provider's side of the seam (lib/local/identity/identity.ts): its sign-in page sets the
 * `__session` cookie (HttpOnly, so the app never holds the token; the browser sends it to the API and the
 * live socket), sign-out clears it, and its API-key routes act for the signed-in user.
 */
import { type ApiKeyView, AuthError, type AuthProvider, type CreatedApiKey } from './provider';

export const LOCAL_IDP = '/_local/idp';

export interface LocalAuthOptions {
  fetch?: typeof fetch;
  /** Goes to another page (the sign-in page); the browser's `location.assign` by default. */
  navigate?: (url: string) => void;
}

async function call<T>(doFetch: typeof fetch, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await doFetch(`${LOCAL_IDP}${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new AuthError('The sign-in service could not be reached: check that the local runtime is running, then try again.');
  }
  if (res.status === 401) throw new AuthError('You are signed out: sign in again, then try once more.');
  if (!res.ok) throw new AuthError(`The sign-in service refused this (${res.status}): reload the page and try again.`);
  return (await res.json()) as T;
}

/** The provider of the local runtime. */
export function localAuth(opts: LocalAuthOptions = {}): AuthProvider {
  const doFetch = opts.fetch ?? ((input, init) => fetch(input, init));
  // Through globalThis: the seam is also type-checked (and unit tested) beside the Node code, without the DOM.
  const navigate = opts.navigate ?? ((url: string) => (globalThis as { location?: { assign(to: string): void } }).location?.assign(url));
  return {
    kind: 'local',
    async signIn(returnTo) {
      navigate(`${LOCAL_IDP}/sign-in?redirect=${encodeURIComponent(returnTo)}`);
    },
    async signOut() {
      await call(doFetch, 'POST', '/sign-out', {});
    },
    async token() {
      return null;
    },
    onChange() {
      // The local provider changes the session only through its own pages, which reload the app.
    },
    apiKeys: {
      list: async () => (await call<{ keys: ApiKeyView[] }>(doFetch, 'GET', '/api-keys')).keys,
      create: async (name) => (await call<{ key: CreatedApiKey }>(doFetch, 'POST', '/api-keys', { name })).key,
      revoke: async (id) => {
        await call(doFetch, 'POST', `/api-keys/${encodeURIComponent(id)}/revoke`, {});
      },
    },
  };
}
