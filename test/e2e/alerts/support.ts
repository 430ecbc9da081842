/**
 * What the alerts e2e tests do outside the browser: the local runtime's control API (users, sessions, API
 * keys, clock, settle; DESIGN "local control API"), a signed-in browser context (the `__session` cookie the
 * local identity provider's sign-in sets), uploads through the typed client, and a stand-in for the browser's
 * push service: Chromium's own is unreachable here, so PushManager hands the page a subscription whose
 * endpoint is a push receiver on 127.0.0.1 (allowed locally: PUSH_LOOPBACK) with keys the test holds, and
 * the test decrypts what the service sends there (test/support/push-receiver.ts).
 */
import type { BrowserContext, Page } from '@playwright/test';
import { httpClient } from '../../../shared/client/http-client';
import { bookOf, type Listing } from '../../support/market-books';

export const MARKET = 'forever.normal.alliance.us';

export const base = (): string => {
  const b = process.env.E2E_BASE;
  if (!b) throw new Error('E2E_BASE is not set: run with -c test/e2e/alerts (its global setup starts the runtime)');
  return b;
};

async function control<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export const now = async (): Promise<number> => ((await (await fetch(`${base()}/_local/health`)).json()) as { now: number }).now;
export const settle = (): Promise<unknown> => control('/_local/settle', {});
export const advance = (ms: number): Promise<unknown> => control('/_local/clock', { advance: ms });

/** A user of the local identity provider and a 30-day session of theirs. */
export async function user(input: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const u = await control<{ id: string }>('/_local/users', input);
  const { token } = await control<{ token: string }>('/_local/sessions', { userId: u.id, expiresIn: 30 * 86_400 });
  return { id: u.id, token };
}

/** The typed client acting for a session, as the page's own requests do (same Origin). */
export const sessionClient = (token: string) => httpClient({ base: base(), token, origin: base() });

/** Signs the browser context in: the `__session` cookie as the local identity provider sets it. */
export async function signIn(context: BrowserContext, token: string): Promise<void> {
  const { hostname } = new URL(base());
  await context.addCookies([{ name: '__session', value: token, domain: hostname, path: '/', httpOnly: true, sameSite: 'Lax' }]);
}

/** Uploads a complete book of `listings` observed now (a fresh uploader each time, so the 5-minute rule never bites) and merges it. */
export async function uploadBook(listings: readonly Listing[]): Promise<void> {
  const u = await control<{ id: string }>('/_local/users', { plan: 'free' });
  const { key } = await control<{ key: string }>('/_local/api-keys', { userId: u.id });
  await httpClient({ base: base(), apiKey: key }).uploadBook(bookOf(await now(), listings));
  await settle();
}

/**
 * Makes PushManager (in pages only) hand out a subscription to `endpoint` with the given keys, kept across
 * reloads, instead of asking the browser's push service.
 */
export async function fakePushService(page: Page, endpoint: string, keys: { p256dh: string; auth: string }): Promise<void> {
  await page.addInitScript(
    ({ endpoint, keys }) => {
      const STORE = 'e2e-push-subscription';
      const { localStorage } = globalThis as unknown as {
        localStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void };
      };
      const make = () => ({
        endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true },
        toJSON: () => ({ endpoint, expirationTime: null, keys }),
        unsubscribe: async () => {
          localStorage.removeItem(STORE);
          return true;
        },
      });
      const proto = (globalThis as unknown as { PushManager: { prototype: Record<string, unknown> } }).PushManager.prototype;
      proto.subscribe = async () => {
        localStorage.setItem(STORE, '1');
        return make();
      };
      proto.getSubscription = async () => (localStorage.getItem(STORE) ? make() : null);
    },
    { endpoint, keys },
  );
}
