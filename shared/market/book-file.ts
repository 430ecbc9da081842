/**
 * Reading stored book files back (the merge's input and the previous book of a volume estimate). Books were
 * validated on upload, so they are parsed, not validated again. The last few are kept in memory: the next
 * merge's previous book is usually the one the same warm function just merged.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { BookFile } from '../files/documents';
import { getObject } from '../items/bucket';
import { redact } from '../log';
import type { Services } from '../services';

const gunzipAsync = promisify(gunzip);
const CACHED = 6;
const cache = new Map<string, BookFile>();

/** The stored book at `path`; throws when it is missing (the message is received again, then dead-lettered). */
export async function loadBookFile(svc: Pick<Services, 'files'>, path: string): Promise<BookFile> {
  const hit = cache.get(path);
  if (hit) {
    cache.delete(path);
    cache.set(path, hit);
    return hit;
  }
  const obj = await getObject(svc, path);
  // The error reaches the log: it names the book without its cap.
  if (!obj) throw new Error(`book file missing: ${redact(path)}`);
  const text = obj.contentEncoding === 'gzip' || isGzip(obj.data) ? await gunzipAsync(obj.data) : obj.data;
  const book = JSON.parse(text.toString('utf8')) as BookFile;
  cache.set(path, book);
  while (cache.size > CACHED) cache.delete(cache.keys().next().value as string);
  return book;
}

const isGzip = (b: Buffer): boolean => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;
