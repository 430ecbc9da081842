/** Order books for upload tests: small hand-made ones and uploads over real HTTP (JSON or gzip). */
import { gzipSync } from 'node:zlib';
import type { Book, BookEntry } from '../../shared/domain/book';
import type { Local } from './local';

export const MARKET = 'forever.normal.alliance.us';
export const OTHER_MARKET = 'forever.pvp.horde.us';

/** A book listing `keys` item keys from `first` (one auction each, price `price(i)`), `auctions` summed. */
export function makeBook(
  at: number,
  opts: { keys?: number; first?: number; price?: (i: number) => number; complete?: boolean; market?: string; via?: string } = {},
): Book {
  const keys = opts.keys ?? 120;
  const first = opts.first ?? 1000;
  const price = opts.price ?? ((i: number) => 10_000 + i * 10);
  const entries: BookEntry[] = [];
  for (let i = 0; i < keys; i++) entries.push([first + i, price(i), 1, 2, 1]);
  return withEntries({ market: opts.market ?? MARKET, at, complete: opts.complete ?? true, auctions: 0, entries, ...(opts.via ? { via: opts.via } : {}) });
}

/** The same book with `entries`, `auctions` recomputed. */
export const withEntries = (book: Book, entries: BookEntry[] = book.entries): Book => ({ ...book, entries, auctions: entries.reduce((s, e) => s + e[4], 0) });

/** POSTs a book (an object, or raw text) to /api/v1/ah/books, gzip-compressed when asked. */
export async function uploadBook(local: Local, token: string | undefined, book: unknown, opts: { gzip?: boolean; headers?: Record<string, string> } = {}) {
  const text = typeof book === 'string' ? book : JSON.stringify(book);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: Buffer | string = text;
  if (opts.gzip) {
    body = gzipSync(text);
    headers['content-encoding'] = 'gzip';
  }
  return rawUpload(local, body, headers);
}

/** POSTs raw bytes to /api/v1/ah/books with exactly these headers. */
export async function rawUpload(local: Local, body: Buffer | string, headers: Record<string, string>) {
  const res = await fetch(`${local.base}/api/v1/ah/books`, { method: 'POST', headers, body });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely by the tests
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

/** The files bucket's keys under `prefix` (GET /_local/files). */
export async function listFiles(
  local: Local,
  prefix: string,
): Promise<Array<{ key: string; size: number; contentType?: string; contentEncoding?: string; cacheControl?: string }>> {
  const res = await fetch(`${local.base}/_local/files?prefix=${encodeURIComponent(prefix)}`);
  return ((await res.json()) as { keys: Array<{ key: string; size: number }> }).keys;
}

/** A published JSON file through the file host (`/cdn/<path>`), decompressed by fetch. */
// biome-ignore lint/suspicious/noExplicitAny: files are read loosely by the tests
export async function cdnJson(local: Local, path: string): Promise<any> {
  const res = await fetch(`${local.base}/cdn/${path}`);
  if (res.status !== 200) throw new Error(`cdn ${path}: ${res.status}`);
  return res.json();
}

/**
 * Gives `keys` a row in `market` the way a real market does: a fresh account uploads a book listing them
 * (one auction each) and the merge runs. One account's name counts only for such keys (issue 23).
 */
export async function observeKeys(local: Local, keys: readonly number[], market = OTHER_MARKET): Promise<void> {
  const user = await local.user();
  const token = await local.apiKey(user.id);
  const entries: BookEntry[] = [...new Set(keys)].sort((a, b) => a - b).map((k) => [k, 10_000, 1, 2, 1]);
  const res = await uploadBook(local, token, withEntries({ market, at: await local.now(), complete: false, auctions: 0, entries }));
  if (res.status !== 200) throw new Error(`observing keys: ${res.status} ${JSON.stringify(res.body)}`);
  await local.settle();
}
