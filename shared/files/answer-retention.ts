/**
 * Retention of spilled answers (shared/http/answer-files.ts): an answer file is read right after its
 * redirect, and an hourly one is valid to the end of its hour, so each is deleted once the hour after the one
 * its path names is over. In AWS a lifecycle rule on the prefix also expires them after a day (the stack),
 * whatever the sweep does; locally this sweep is the only deleter.
 */
import { HOUR_MS } from '../clock';
import type { Services } from '../services';
import { deleteFiles, listFiles } from './file-store';

export const ANSWER_FILES_PREFIX = 'answers/';
const ANSWER_PATH = /^answers\/v1\/[A-Za-z0-9_-]{22}\/(\d+)\.json(\.gz)?$/;

/** Answer files past their time at `now` (and anything else under the prefix, which no writer makes). */
export function expiredAnswers(paths: readonly string[], now: number): string[] {
  return paths.filter((p) => {
    const m = p.match(ANSWER_PATH);
    return !m || (Number(m[1]) + 2) * HOUR_MS <= now;
  });
}

/** Deletes the expired answer files; answers how many there were and how many went. */
export async function retainAnswers(svc: Pick<Services, 'clock' | 'files'>): Promise<{ prefix: string; files: number; deleted: number }> {
  const listed = await listFiles(svc, ANSWER_FILES_PREFIX);
  const expired = expiredAnswers(
    listed.map((f) => f.path),
    svc.clock.now(),
  );
  if (expired.length > 0) await deleteFiles(svc, expired);
  return { prefix: ANSWER_FILES_PREFIX, files: listed.length, deleted: expired.length };
}
