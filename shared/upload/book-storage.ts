/**
 * Upload bodies in the files bucket: an accepted book as its book file (spec files: `books/v1/<market>/<at>-
 * <cap>.json.gz`, the `books` feature's file and the merge's input) or, for `disagrees`, a quarantined body
 * under a private path no answer ever names. Any bucket failure is 503 `storage_failed`.
 */
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Book } from '../domain/book';
import { newCap } from '../domain/caps';
import { bookPath, fileHeaders } from '../domain/file-paths';
import { UnavailableError } from '../errors';
import { bookDoc } from '../files/documents';
import { redact } from '../log';
import type { Services } from '../services';

const gzipAsync = promisify(gzip);

/** `quarantine/<market>/<at>-<random>.json.gz`: 128 random bits, so the path cannot be guessed from the book. */
export const quarantinePath = (market: string, at: number): string => `quarantine/${market}/${at}-${newCap(randomBytes)}.json.gz`;

/** The book file's text: `{v: 1, market, at, complete, auctions, entries}` (`via` stays out). */
const bookText = (book: Book): string => JSON.stringify(bookDoc(book));

async function put(
  svc: Pick<Services, 'files' | 'log'>,
  key: string,
  text: string,
  headers: { contentType: string; contentEncoding?: string; cacheControl: string },
): Promise<void> {
  // Level 4: a 200000-entry book compresses nearly as well as at level 6 in about half the CPU.
  const body = await gzipAsync(text, { level: 4 });
  try {
    await svc.files.put(key, body, {
      contentType: headers.contentType,
      contentEncoding: headers.contentEncoding ?? 'gzip',
      cacheControl: headers.cacheControl,
    });
  } catch (err) {
    svc.log('error', 'upload: storing the body failed', { error: err instanceof Error ? err.message : String(err) });
    throw new UnavailableError('storage_failed', 'the upload could not be stored; try again');
  }
}

/** Stores an accepted book as its book file with a fresh cap; answers the bucket path. */
export async function storeBookFile(svc: Pick<Services, 'files' | 'log'>, book: Book): Promise<string> {
  const path = bookPath(book.market, book.at, newCap(randomBytes));
  await put(svc, path, bookText(book), fileHeaders(path));
  return path;
}

/** Stores a `disagrees` body privately (never cached publicly); answers the bucket path. */
export async function storeQuarantined(svc: Pick<Services, 'files' | 'log'>, book: Book): Promise<string> {
  const path = quarantinePath(book.market, book.at);
  await put(svc, path, bookText(book), { contentType: 'application/json', contentEncoding: 'gzip', cacheControl: 'private, no-store' });
  return path;
}

/** Deletes a stored body (rollback and retention); a failure is logged, never thrown. */
export async function deleteStored(svc: Pick<Services, 'files' | 'log'>, path: string): Promise<boolean> {
  try {
    await svc.files.delete([path]);
    return true;
  } catch (err) {
    // The path carries the book's cap: it is logged without it.
    svc.log('warn', 'deleting a stored body failed', { path: redact(path), error: err instanceof Error ? err.message : String(err) });
    return false;
  }
}
