/**
 * Writing and reading published files through the files port: JSON documents gzip or plain as their path
 * says, with the headers the spec's caching rules give them (shared/domain/file-paths.ts). Every object the service
 * writes lands under the stage's `FILES_PREFIX` (the adapter adds it), so previews share the dev bucket.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { fileHeaders } from '../domain/file-paths';
import type { FilesPort, ListedFile } from '../ports/files';

export type { ListedFile } from '../ports/files';

type WithFiles = { files: FilesPort };

const gzipAsync = promisify(gzip);

/** Writes a JSON document (text or a value) at a published path; answers the stored size. */
export async function putJsonFile({ files }: WithFiles, path: string, doc: unknown): Promise<number> {
  const h = fileHeaders(path);
  const text = typeof doc === 'string' ? doc : JSON.stringify(doc);
  const body = h.contentEncoding === 'gzip' ? await gzipAsync(text) : Buffer.from(text, 'utf8');
  await files.put(path, body, h);
  return body.length;
}

/** An object's bytes, or null when it does not exist. */
export const getObjectBytes = ({ files }: WithFiles, path: string): Promise<Buffer | null> => files.get(path);

/** An object's stored size, or null when it does not exist. */
export const fileSize = async ({ files }: WithFiles, path: string): Promise<number | null> => (await files.head(path))?.size ?? null;

/** Every object under a prefix, paths relative to the stage's prefix. */
export const listFiles = ({ files }: WithFiles, prefix: string): Promise<ListedFile[]> => files.list(prefix);

/** When an object was written (service clock where it says so), or undefined when it does not exist. */
export const writtenAt = async ({ files }: WithFiles, path: string): Promise<number | undefined> => (await files.head(path))?.writtenAt;

/** Deletes objects (retention). */
export const deleteFiles = ({ files }: WithFiles, paths: readonly string[]): Promise<void> => files.delete(paths);
