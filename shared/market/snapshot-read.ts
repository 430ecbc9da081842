/**
 * The snapshot route's two reads (spec Market reads: GET /api/v1/ah/:market/snapshot; issue 15 point 6: cost),
 * kept by a warm function instance: the `latest.json` pointer, then the hourly file it names.
 *
 * - The hourly file `snap/v1/<market>/<hour>.json.gz` is immutable (written once, never rewritten: snapshot-
 *   files.ts), so it is kept by (bucket, path) for as long as memory allows: the answer cannot differ.
 * - The pointer is rewritten by every snapshot run; it is kept no longer than its own `Cache-Control` allows
 *   (`max-age=60`, paths.ts), and never past the end of the hour it was read in (the next hour's run rewrites
 *   it then), so a new hour's file is answered as soon as a read after the run would see it.
 * - A missing pointer or file (before the first snapshot) is never kept.
 */
import { HOUR_MS, hourOf } from '../clock';
import { fileHeaders, parseFilePath, snapshotLatestPath } from '../domain/file-paths';
import { getObject, type StoredObject } from '../items/bucket';
import type { FilesPort } from '../ports/files';
import type { Services } from '../services';
import { ReadCache } from './read-cache';

/** A bucket's id in this process: caches never mix two stages' (or two local runtimes') files. */
const bucketIds = new WeakMap<FilesPort, number>();
let nextBucketId = 0;
function bucketOf(files: FilesPort): number {
  let id = bucketIds.get(files);
  if (id === undefined) {
    id = ++nextBucketId;
    bucketIds.set(files, id);
  }
  return id;
}

/** A 20000-key market's snapshot is ~0.3 MB gzip: 64 MB keeps every market's hour many times over. */
const files = new ReadCache<StoredObject>('snapshot-files', 64 * 1024 * 1024, (f) => f.data.length + 64);
const pointers = new ReadCache<{ path: string | null; readAt: number; until: number }>('snapshot-pointers', 1024 * 1024, (p) => 128 + (p.path?.length ?? 0));

/** How long the pointer at `path` may be kept (its `max-age`), in ms. */
const maxAgeMs = (path: string): number => {
  const m = /max-age=(\d+)/.exec(fileHeaders(path).cacheControl ?? '');
  return m ? Number(m[1]) * 1000 : 0;
};

/** The path the market's `latest.json` names (null: no pointer, or one naming nothing). */
async function pointedPath(svc: Pick<Services, 'files' | 'clock'>, market: string): Promise<string | null> {
  const at = snapshotLatestPath(market);
  const key = `${bucketOf(svc.files)}|${at}`;
  const now = svc.clock.now();
  const kept = pointers.get(key);
  if (kept && now >= kept.readAt && now < kept.until) return kept.path;
  const pointer = await getObject(svc, at);
  if (!pointer) return null;
  const named = (JSON.parse(pointer.data.toString('utf8')) as { path?: unknown }).path;
  const path = typeof named === 'string' ? named : null;
  pointers.set(key, { path, readAt: now, until: Math.min(now + maxAgeMs(at), (hourOf(now) + 1) * HOUR_MS) });
  return path;
}

/** The newest hourly snapshot file of `market` and its path, or null before the first. */
export async function latestSnapshotFile(svc: Pick<Services, 'files' | 'clock'>, market: string): Promise<{ path: string; file: StoredObject } | null> {
  const path = await pointedPath(svc, market);
  if (path === null) return null;
  const immutable = parseFilePath(path)?.kind === 'snapshot';
  const key = `${bucketOf(svc.files)}|${path}`;
  const kept = immutable ? files.get(key) : undefined;
  if (kept) return { path, file: kept };
  const file = await getObject(svc, path);
  if (!file) return null;
  if (immutable) files.set(key, file);
  return { path, file };
}
