/**
 * The files bucket as the file jobs use it: JSON files written under the spec's paths with the headers
 * paths.ts fixes, each carrying its service-clock write time in object metadata (retention ages files by it:
 * the local S3 server stamps `LastModified` with the wall clock, which a manual service clock does not follow).
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { fileHeaders } from './paths';
import type { Services } from '../services';

/** Object metadata key of the service-clock write time (ms). */
export const WRITTEN_META = 'written';

/** A published path's object key: previews share the dev bucket under their stage's prefix. */
export const bucketKey = (svc: Services, path: string): string => `${svc.config.filesPrefix}${path}`;

/** Compression runs on the thread pool, beside the job's other work. */
const gzipAsync = promisify(gzip);

export const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Writes a published JSON file (a document, or its JSON text) with its path's headers (gzip for `.json.gz`)
 * and its service-clock write time; answers the stored size in bytes.
 */
export async function putJsonFile(svc: Services, path: string, doc: unknown): Promise<number> {
  const h = fileHeaders(path);
  const text = typeof doc === 'string' ? doc : JSON.stringify(doc);
  const body = h.contentEncoding === 'gzip' ? await gzipAsync(text) : Buffer.from(text, 'utf8');
  await svc.s3.send(
    new PutObjectCommand({
      Bucket: svc.config.bucketName,
      Key: bucketKey(svc, path),
      Body: body,
      ContentType: h.contentType,
      ContentEncoding: h.contentEncoding,
      CacheControl: h.cacheControl,
      Metadata: { [WRITTEN_META]: String(svc.clock.now()) },
    }),
  );
  return body.length;
}

/** The bytes stored at `path` (as stored: still gzip when written so), or null. */
export async function getObjectBytes(svc: Services, path: string): Promise<Buffer | null> {
  try {
    const res = await svc.s3.send(new GetObjectCommand({ Bucket: svc.config.bucketName, Key: bucketKey(svc, path) }));
    return Buffer.from(await res.Body!.transformToByteArray());
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** The stored size of a file, or null when there is none (immutable files are never rewritten). */
export async function fileSize(svc: Services, path: string): Promise<number | null> {
  try {
    const head = await svc.s3.send(new HeadObjectCommand({ Bucket: svc.config.bucketName, Key: bucketKey(svc, path) }));
    return head.ContentLength ?? 0;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

export interface ListedFile {
  /** Path relative to the stage's prefix. */
  path: string;
  /** `LastModified` as the bucket reports it (wall clock). */
  lastModified?: number;
}

/** Every file under a path prefix. */
export async function listFiles(svc: Services, prefix: string): Promise<ListedFile[]> {
  const out: ListedFile[] = [];
  const strip = svc.config.filesPrefix.length;
  let token: string | undefined;
  do {
    const page = await svc.s3.send(new ListObjectsV2Command({ Bucket: svc.config.bucketName, Prefix: bucketKey(svc, prefix), ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) out.push({ path: o.Key.slice(strip), lastModified: o.LastModified?.getTime() });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

/** The service-clock write time a file carries, else its `LastModified`. */
export async function writtenAt(svc: Services, path: string): Promise<number | undefined> {
  try {
    const head = await svc.s3.send(new HeadObjectCommand({ Bucket: svc.config.bucketName, Key: bucketKey(svc, path) }));
    const written = Number(head.Metadata?.[WRITTEN_META]);
    return Number.isFinite(written) && written > 0 ? written : head.LastModified?.getTime();
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

/** Deletes files (up to 1000 per call to the bucket). */
export async function deleteFiles(svc: Services, paths: readonly string[]): Promise<void> {
  for (let i = 0; i < paths.length; i += 1000) {
    const batch = paths.slice(i, i + 1000);
    const out = await svc.s3.send(
      new DeleteObjectsCommand({ Bucket: svc.config.bucketName, Delete: { Objects: batch.map((p) => ({ Key: bucketKey(svc, p) })), Quiet: true } }),
    );
    if (out.Errors && out.Errors.length > 0) throw new Error(`retention: ${out.Errors.length} files could not be deleted`);
  }
}
