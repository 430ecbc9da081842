/**
 * Order book reads (spec Market reads: item book, books list, book file; market summary `book`): the current
 * book from its file in the bucket, the book log for lists. Gated by `books` in the routes; nothing here
 * names an uploader.
 */
import { gunzipSync } from 'node:zlib';
import { fileUrl } from '../domain/file-paths';
import { getObject } from '../items/bucket';
import type { BookLogEntry, CurrentBook } from '../ports/market';
import type { Services } from '../services';
import type { ReadSources } from './sources';

/** DESIGN: a market summary's `book` and a books list entry (`entries` is a count). */
export interface BookSummary {
  at: number;
  complete: boolean;
  auctions: number;
  entries: number;
  url: string;
}

export const bookSummary = (cdnBase: string, b: Pick<BookLogEntry, 'at' | 'complete' | 'auctions' | 'entries'>, path: string): BookSummary => ({
  at: b.at,
  complete: b.complete,
  auctions: b.auctions,
  entries: b.entries,
  url: fileUrl(cdnBase, path),
});

/**
 * The current book as of `cut` (hourly view): the current book when read before cut, else the newest
 * complete book before cut from the book log (kept 30 days).
 */
export async function currentBookBefore(
  src: ReadSources,
  market: string,
  current: CurrentBook | null,
  cut: number,
): Promise<{ book: Omit<CurrentBook, 'ref'>; path: string } | null> {
  if (current && current.at < cut) return { book: current, path: current.ref };
  const older = await src.books.between(market, cut - 30 * 86_400_000, cut - 1);
  const found = older.find((b) => b.complete);
  return found ? { book: found, path: found.path } : null;
}

/** A stored book's entries packed flat (`key, price, stack, band, n` per entry), in book order. */
interface PackedBook {
  entries: Float64Array;
  count: number;
}

// Book files are immutable per path: a warm function keeps the newest parsed book per market (a few MB each).
const packed = new Map<string, { path: string; book: Promise<PackedBook | null> }>();

/** The book file at `path` as bytes and JSON text (gunzipped when stored gzip), or null when missing. */
export async function readBookFile(svc: Pick<Services, 'files'>, path: string): Promise<{ raw: Buffer; gzip: boolean } | null> {
  const obj = await getObject(svc, path);
  if (!obj) return null;
  const gzip = obj.contentEncoding === 'gzip' || (obj.data[0] === 0x1f && obj.data[1] === 0x8b);
  return { raw: obj.data, gzip };
}

async function loadPacked(svc: Pick<Services, 'files'>, path: string): Promise<PackedBook | null> {
  const file = await readBookFile(svc, path);
  if (!file) return null;
  const doc = JSON.parse((file.gzip ? gunzipSync(file.raw) : file.raw).toString('utf8')) as { entries?: number[][] };
  const list = doc.entries ?? [];
  const entries = new Float64Array(list.length * 5);
  list.forEach((e, i) => {
    entries.set(e.slice(0, 5), i * 5);
  });
  return { entries, count: list.length };
}

/** Spec item book `entries`: `[price, stack, band, n]` of `key` in the book file at `path` (book order). */
export async function itemBookEntries(
  svc: Pick<Services, 'config' | 'files'>,
  market: string,
  path: string,
  key: number,
): Promise<Array<[number, number, number, number]>> {
  const id = `${svc.config.bucketName}/${market}`;
  let hit = packed.get(id);
  if (hit?.path !== path) {
    const book = loadPacked(svc, path);
    book.catch(() => packed.delete(id));
    hit = { path, book };
    packed.set(id, hit);
  }
  const book = await hit.book;
  if (!book) return [];
  // Entries are ascending by key: binary search for the first of `key`.
  let lo = 0;
  let hi = book.count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (book.entries[mid * 5] < key) lo = mid + 1;
    else hi = mid;
  }
  const out: Array<[number, number, number, number]> = [];
  for (let i = lo; i < book.count && book.entries[i * 5] === key; i++) {
    const o = i * 5;
    out.push([book.entries[o + 1], book.entries[o + 2], book.entries[o + 3], book.entries[o + 4]]);
  }
  return out;
}
