/**
 * What the alerts e2e tests do outside the browser, on the runtime playwright.config.ts starts: the local
 * control API (users with chosen plans and features, settle; DESIGN "local control API"), uploads through the
 * typed client, and a stand-in for the browser's push service: Chromium's own is unreachable here, so PushManager hands the page a subscription whose
 * endpoint is a push receiver on 127.0.0.1 (allowed locally: PUSH_LOOPBACK) with keys the test holds, and
 * the test decrypts what the service sends there (test/support/push-receiver.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { httpClient } from '../../shared/client/http-client';
import { bookOf, type Listing } from '../support/market-books';

/** A market the demo feeds no book to (lib/local/demo/demo.ts DEMO_MARKETS): only these tests' books fire alerts there. */
export const MARKET = 'forever.rp.alliance.us';

/** The runtime's base (playwright.config.ts picks the port once; workers inherit it). */
export const base = (): string => `http://127.0.0.1:${process.env.E2E_PORT}`;

async function control<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export const now = async (): Promise<number> => ((await (await fetch(`${base()}/_local/health`)).json()) as { now: number }).now;
export const settle = (): Promise<unknown> => control('/_local/settle', {});

/**
 * A new user of the local identity provider (`input`: plan, withheld features), with a fresh e-mail that the
 * sign-in page then signs in as (it takes the newest user of an e-mail), and a session for checking what the
 * pages stored through the typed client.
 */
export async function user(input: Record<string, unknown> = {}): Promise<{ email: string; token: string }> {
  const email = `alerts-${randomBytes(6).toString('hex')}@e2e.test`;
  const u = await control<{ id: string }>('/_local/users', { email, ...input });
  const { token } = await control<{ token: string }>('/_local/sessions', { userId: u.id, expiresIn: 8 * 3600 });
  return { email, token };
}

/** The typed client acting for a session, as the page's own requests do (same Origin). */
export const sessionClient = (token: string) => httpClient({ base: base(), token, origin: base() });

/** Uploads a complete book of `listings` observed now (a fresh uploader each time, so the 5-minute rule never bites) and merges it. */
export async function uploadBook(listings: readonly Listing[]): Promise<void> {
  const u = await control<{ id: string }>('/_local/users', { plan: 'free' });
  const { key } = await control<{ key: string }>('/_local/api-keys', { userId: u.id });
  await httpClient({ base: base(), apiKey: key }).uploadBook(bookOf(await now(), listings, true, MARKET));
  await settle();
}

/**
 * Makes PushManager (in pages only) hand out a subscription to `endpoint` with the given keys, kept across
 * reloads, instead of asking the browser's push service; `localStorage['e2e-push-subscription']` holds the
 * application server (VAPID) key the page subscribed with.
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
      // Keeps the application server key the page subscribed with (base64url), for the test to compare with the deployment's.
      proto.subscribe = async (options: { applicationServerKey: ArrayBuffer | ArrayBufferView }) => {
        const k = options.applicationServerKey;
        const bytes = k instanceof ArrayBuffer ? new Uint8Array(k) : new Uint8Array(k.buffer, k.byteOffset, k.byteLength);
        localStorage.setItem(
          STORE,
          btoa(String.fromCharCode(...bytes))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, ''),
        );
        return make();
      };
      proto.getSubscription = async () => (localStorage.getItem(STORE) ? make() : null);
    },
    { endpoint, keys },
  );
}
