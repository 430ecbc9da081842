/**
 * Item files, icons and release files in the files bucket, through the shared file store (which applies the
 * stage's prefix and the headers shared/domain/file-paths.ts fixes for each published path).
 */
import { fileSize, getObjectBytes } from '../files/file-store';
import type { Services } from '../services';

export { putJsonFile } from '../files/file-store';

/** An object as stored: its bytes, still gzip when `contentEncoding` says so (`.json.gz` files are written gzip). */
export interface StoredObject {
  data: Buffer;
  contentEncoding?: 'gzip';
}

/** The stored object at `path`, or null when there is none. */
export async function getObject(svc: Pick<Services, 'files'>, path: string): Promise<StoredObject | null> {
  const data = await getObjectBytes(svc, path);
  if (!data) return null;
  return path.endsWith('.json.gz') ? { data, contentEncoding: 'gzip' } : { data };
}

/** Whether an object exists (immutable files are written once: an existing one is never rewritten). */
export const objectExists = async (svc: Pick<Services, 'files'>, path: string): Promise<boolean> => (await fileSize(svc, path)) !== null;
