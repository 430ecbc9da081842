/**
 * The files a merge publishes (spec files: Capability files, Sequence numbers): the change file of every
 * merge and the checkpoint after merge 1 and every 50th, each under its own cap, gzip and immutable.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { type AuctionRow, type RowTable, pickRows } from '../domain/merge';
import { changeDoc, checkpointDoc } from '../files/documents';
import { bucketKey, WRITTEN_META } from '../files/file-store';
import { changePath, checkpointPath, fileHeaders } from '../files/paths';
import type { Services } from '../services';
import type { PendingMerge } from '../store/market-store';

export interface MergeFiles {
  changePath: string;
  checkpointPath?: string;
}

/** Writes seq's change file (the rows the merge changed) and, when due, its checkpoint (the whole table). */
export async function writeMergeFiles(svc: Services, market: string, pending: PendingMerge, at: number, rows: RowTable, changed: readonly number[]): Promise<MergeFiles> {
  const seq = pending.seq;
  const files: MergeFiles = { changePath: changePath(market, seq, pending.changeCap) };
  const writes = [putGzipJson(svc, files.changePath, JSON.stringify(changeDoc(market, seq, at, pickRows(rows, changed))))];
  if (pending.checkpointCap) {
    files.checkpointPath = checkpointPath(market, seq, pending.checkpointCap);
    writes.push(putGzipJson(svc, files.checkpointPath, JSON.stringify(checkpointDoc(market, seq, at, wholeTable(rows)))));
  }
  await Promise.all(writes);
  return files;
}

function wholeTable(rows: RowTable): AuctionRow[] {
  const keys = [...rows.keys()].sort((a, b) => a - b);
  return pickRows(rows, keys);
}

const gzipAsync = promisify(gzip);

/** Writes a `.json.gz` file with its path's headers; compression runs off the event loop, beside the page writes. */
async function putGzipJson(svc: Services, path: string, text: string): Promise<void> {
  const h = fileHeaders(path);
  const body = await gzipAsync(text);
  await svc.s3.send(
    new PutObjectCommand({
      Bucket: svc.config.bucketName,
      Key: bucketKey(svc, path),
      Body: body,
      ContentType: h.contentType,
      ContentEncoding: h.contentEncoding,
      CacheControl: h.cacheControl,
      // Retention ages live files by their service-clock write time (see shared/files/file-store.ts).
      Metadata: { [WRITTEN_META]: String(svc.clock.now()) },
    }),
  );
}
