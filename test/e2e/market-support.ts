/**
 * What the market browser tests need beyond the site's helpers (./support.ts): the runtime's address and
 * clock (the shared Playwright set-up runs the demo, whose clock moves on its own), the control API (DESIGN:
 * Local control API) for uploaders, and book uploads through the typed client (shared/client), as a desktop
 * app or an integration uploads them.
 */
import { httpClient } from '../../shared/client/http-client';
import type { BookEntry } from '../../shared/domain/book';

/** The runtime the shared set-up (playwright.config.ts) started. */
export const base = (): string => `http://127.0.0.1:${process.env.E2E_PORT}`;

async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The service's clock (the demo's replay clock is not the test machine's). */
export const serviceNow = async (): Promise<number> => (await control<{ now: number }>('GET', '/_local/health')).now;
export const settle = () => control<{ now: number }>('POST', '/_local/settle', {});

/**
 * A fresh uploader (an API key of a new premium user, with `api.upload`), so no upload waits for a caller's
 * 5 minutes between books of a market. The book is complete and lists only the given prices.
 */
export async function uploadBook(market: string, prices: Record<number, [price: number, quantity: number]>) {
  const u = await control<{ id: string }>('POST', '/_local/users', { plan: 'premium' });
  const { key } = await control<{ key: string }>('POST', '/_local/api-keys', { userId: u.id });
  const entries: BookEntry[] = Object.entries(prices).map(([k, [price, n]]) => [Number(k), price, 1, 2, n]);
  entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const at = (await serviceNow()) - 1000;
  const answer = await httpClient({ base: base(), apiKey: key }).uploadBook({
    market,
    at,
    complete: true,
    auctions: entries.reduce((s, e) => s + e[4], 0),
    entries,
  });
  await settle();
  return answer;
}

/** `Hourly view as of 14:00 UTC, 2 Nov 2026` for a service time: the top of its hour, written out. */
export function hourlyText(now: number): string {
  const d = new Date(Math.floor(now / 3_600_000) * 3_600_000);
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `Hourly view as of ${String(d.getUTCHours()).padStart(2, '0')}:00 UTC, ${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}.`;
}
