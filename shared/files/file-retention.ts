/**
 * Retention of published files (spec files-and-live Limits "Retention of …"; DESIGN: snapshot files 7 days,
 * recent files 8): deletes by prefix and age. A file whose path names its time (candle periods, snapshots,
 * books) ages from it; live change and checkpoint files age from their write time, the listing's
 * `LastModified` (S3's clock is the service's; the local S3 edge answers it at the service clock). Pointers, item data and
 * icons are kept; anything left under `work/` (internal state, now in the work bucket) is deleted. Called by
 * the retention schedule (every 6 hours).
 */

import { expiredFiles, RETENTION } from '../domain/file-paths';
import { MARKETS } from '../domain/market';
import type { Services } from '../services';
import { retainAnswers } from './answer-retention';
import { deleteFiles, listFiles } from './file-store';

/** Internal state once kept beside the published files (before the work bucket): deleted whatever its age. */
const LEGACY_PREFIXES = ['work/'];

export interface FileRetentionResult {
  /** Files looked at and deleted per prefix. */
  prefixes: Array<{ prefix: string; files: number; deleted: number }>;
}

/** Deletes every published file past its prefix's retention at the service clock's now. */
export async function retainFiles(svc: Pick<Services, 'clock' | 'market' | 'files'>): Promise<FileRetentionResult> {
  const now = svc.clock.now();
  const prefixes: FileRetentionResult['prefixes'] = [];
  // Spec Order books rule 2: the current book never expires, so its file stays whatever its age.
  const store = svc.market.pages;
  const current = new Set((await Promise.all(MARKETS.map((m) => store.meta(m)))).flatMap((m) => (m.currentBook ? [m.currentBook.ref] : [])));
  for (const rule of RETENTION) {
    const listed = await listFiles(svc, rule.prefix);
    const expired = expiredFiles(
      listed.map((f) => ({ key: f.path, lastModified: f.lastModified })),
      now,
    ).filter((path) => !current.has(path));
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
