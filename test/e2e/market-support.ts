/**
 * What the market end-to-end tests need of the local runtime: its address, the control API (DESIGN: Local
 * control API) for users, sessions, API keys, item data and the clock, and book uploads through the typed
 * client (shared/client), as a desktop app or an integration uploads them.
 */
import type { BrowserContext } from '@playwright/test';
import { httpClient } from '../../shared/client/http-client';
import type { BookEntry } from '../../shared/domain/book';

// Set once in the runner's process; its workers inherit it, so both agree on the port.
process.env.E2E_MARKET_PORT ??= String(20_000 + (process.pid % 20_000));
export const E2E_PORT = Number(process.env.E2E_MARKET_PORT);
export const E2E_BASE = `http://127.0.0.1:${E2E_PORT}`;

/** 2026-11-02 10:30 UTC: half an hour before a top of the hour the tests cross. */
export const CLOCK_START = Date.UTC(2026, 10, 2, 10, 30);

async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${E2E_BASE}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export const now = async (): Promise<number> => (await control<{ now: number }>('GET', '/_local/health')).now;
export const advance = async (ms: number): Promise<number> => (await control<{ now: number }>('POST', '/_local/clock', { advance: ms })).now;
export const tick = () => control<{ ran: string[] }>('POST', '/_local/tick', {});
export const settle = () => control<{ now: number }>('POST', '/_local/settle', {});

/** A user of the local identity provider. */
export const user = (input: { email?: string; plan?: 'free' | 'premium' } = {}) => control<{ id: string; email: string }>('POST', '/_local/users', input);

/** Signs the browser context in as `userId`: the `__session` cookie the local sign-in page sets (HttpOnly). */
export async function signIn(context: BrowserContext, userId: string): Promise<void> {
  const { token } = await control<{ token: string }>('POST', '/_local/sessions', { userId, expiresIn: 3600 * 6 });
  await context.addCookies([{ name: '__session', value: token, url: E2E_BASE, httpOnly: true, sameSite: 'Lax' }]);
}

/** Publishes item data with these names (and makes it current). */
export async function publishItems(build: string, items: Record<number, { n: string; q: number }>): Promise<void> {
  await control('POST', '/_local/items', { v: 1, build, source: 'e2e', suffixes: {}, statNames: {}, bonusLists: {}, bonusTrees: {}, items });
}

/** An uploader: an API key (`api.upload`) of a fresh premium user, used through the typed client. */
export async function uploader() {
  const u = await user({ plan: 'premium' });
  const { key } = await control<{ key: string }>('POST', '/_local/api-keys', { userId: u.id });
  const api = httpClient({ base: E2E_BASE, apiKey: key });
  return {
    /** Uploads a complete book of `market` observed at the service's now: the given prices plus filler items, so it is a whole market. */
    async upload(market: string, prices: Record<number, [price: number, quantity: number]>) {
      const at = (await now()) - 1000;
      const entries: BookEntry[] = Object.entries(prices).map(([key, [price, n]]) => [Number(key), price, 1, 2, n]);
      for (let i = 0; i < 110; i++) entries.push([30_000 + i, 5_000 + i, 1, 2, 1]);
      entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const answer = await api.uploadBook({ market, at, complete: true, auctions: entries.reduce((s, e) => s + e[4], 0), entries });
      await settle();
      return answer;
    },
  };
}
