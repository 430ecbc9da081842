/**
 * The files a merge publishes (spec files: Capability files, Sequence numbers): the change file of every
 * merge and the checkpoint after merge 1 and every 50th, each under its own cap, gzip and immutable.
 */

import { changePath, checkpointPath } from '../domain/file-paths';
import { type AuctionRow, pickRows, type RowTable } from '../domain/merge';
import { changeDoc, checkpointDoc } from '../files/documents';
import { putJsonFile } from '../files/file-store';
import type { PendingMerge } from '../ports/market';
import type { Services } from '../services';
import { settled } from './settled';

export interface MergeFiles {
  changePath: string;
  checkpointPath?: string;
}

/** Writes seq's change file (the rows the merge changed) and, when due, its checkpoint (the whole table). */
export async function writeMergeFiles(
  svc: Pick<Services, 'files'>,
  market: string,
  pending: PendingMerge,
  at: number,
  rows: RowTable,
  changed: readonly number[],
): Promise<MergeFiles> {
  const seq = pending.seq;
  const files: MergeFiles = { changePath: changePath(market, seq, pending.changeCap) };
  const writes = [putJsonFile(svc, files.changePath, changeDoc(market, seq, at, pickRows(rows, changed)))];
  if (pending.checkpointCap) {
    files.checkpointPath = checkpointPath(market, seq, pending.checkpointCap);
    writes.push(putJsonFile(svc, files.checkpointPath, checkpointDoc(market, seq, at, wholeTable(rows))));
  }
  await settled(writes);
  return files;
}

function wholeTable(rows: RowTable): AuctionRow[] {
  const keys = [...rows.keys()].sort((a, b) => a - b);
  return pickRows(rows, keys);
}
