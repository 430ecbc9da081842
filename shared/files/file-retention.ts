/**
 * Retention of published files (spec files-and-live Limits "Retention of …"; DESIGN: snapshot files 7 days,
 * recent files 8): deletes by prefix and age. A file whose path names its time (candle periods, snapshots,
 * books) ages from it; live change and checkpoint files age from their write time. Pointers, item data and
 * icons are kept; anything left under `work/` (internal state, now in the work bucket) is deleted. Called by
 * the retention schedule (every 6 hours).
 */
import { MARKETS } from '../domain/market';
import type { Services } from '../services';
import { retainAnswers } from './answer-retention';
import { deleteFiles, listFiles, writtenAt } from './file-store';
import { expiredFiles, fileTime, parseFilePath, RETENTION, retentionOf, type StoredFile } from './paths';

const PARALLEL = 16;
/** Internal state once kept beside the published files (before the work bucket): deleted whatever its age. */
const LEGACY_PREFIXES = ['work/'];

export interface FileRetentionResult {
  /** Files looked at and deleted per prefix. */
  prefixes: Array<{ prefix: string; files: number; deleted: number }>;
}

/**
 * The write time of files whose path names no time. In AWS the bucket's `LastModified` is the service clock;
 * locally the S3 server stamps wall-clock time, so the service-clock time the writer stored is asked for.
 */
async function writeTimes(svc: Pick<Services, 'config' | 'files'>, files: Array<{ path: string; lastModified?: number }>): Promise<StoredFile[]> {
  const local = svc.config.endpoints.s3 !== undefined;
  const out: StoredFile[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const f = files[i];
      const ref = parseFilePath(f.path);
      // Kept files (pointers) never expire, so only expiring files without a time in their path (live/) are asked.
      const needsTime = ref !== null && fileTime(ref) === null && retentionOf(f.path) !== null;
      out[i] = { key: f.path, lastModified: needsTime && local ? await writtenAt(svc, f.path) : f.lastModified };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, files.length) }, worker));
  return out;
}

/** Deletes every published file past its prefix's retention at the service clock's now. */
export async function retainFiles(svc: Pick<Services, 'config' | 'clock' | 'market' | 'files'>): Promise<FileRetentionResult> {
  const now = svc.clock.now();
  const prefixes: FileRetentionResult['prefixes'] = [];
  // Spec Order books rule 2: the current book never expires, so its file stays whatever its age.
  const store = svc.market.pages;
  const current = new Set((await Promise.all(MARKETS.map((m) => store.meta(m)))).flatMap((m) => (m.currentBook ? [m.currentBook.ref] : [])));
  for (const rule of RETENTION) {
    const listed = await listFiles(svc, rule.prefix);
    const expired = expiredFiles(await writeTimes(svc, listed), now).filter((path) => !current.has(path));
    if (expired.length > 0) await deleteFiles(svc, expired);
    prefixes.push({ prefix: rule.prefix, files: listed.length, deleted: expired.length });
  }
  for (const prefix of LEGACY_PREFIXES) {
    const listed = await listFiles(svc, prefix);
    if (listed.length > 0)
      await deleteFiles(
        svc,
        listed.map((f) => f.path),
      );
    prefixes.push({ prefix, files: listed.length, deleted: listed.length });
  }
  prefixes.push(await retainAnswers(svc));
  return { prefixes };
}
