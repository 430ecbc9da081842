/**
 * Where the file host (lib/local/gateways/file-host.ts) and the control API's `/_local/files` read the files
 * bucket: s3rver past the local AWS edge in the engines' mode, the memory files port in the memory mode. Keys are
 * the bucket's own (a preview stage's `filesPrefix` included), so `/cdn/<key>` names the same object either way.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { StoredHeaders } from '../../../shared/ports/files';
import type { MemoryFiles } from '../../../shared/store/memory/files';

/** An object as the bucket serves it: its bytes (streamed from s3rver, as CloudFront streams), their length and the headers it was stored with. */
export interface ServedObject extends StoredHeaders {
  body: Buffer | Readable;
  length: number;
  etag?: string;
}

/** An object as `/_local/files` lists it. */
export interface ListedObject extends Partial<StoredHeaders> {
  key: string;
  size: number;
}

export interface FileSource {
  /** The object at `key`; `missing` when there is none, `denied` when the bucket refuses the read (S3's other 4xx). Throws when unreachable. */
  read(key: string): Promise<ServedObject | 'missing' | 'denied'>;
  /** Every object under a key prefix, in key order, with its headers. */
  list(prefix: string): Promise<ListedObject[]>;
}

/** The files bucket in s3rver, read with the engines' own client (past the edge, as CloudFront's origin access is). */
export function s3FileSource(s3: S3Client, bucket: string): FileSource {
  return {
    async read(key) {
      try {
        const obj = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        // The length is the object's (S3 never inflates a stored encoding).
        const body = obj.Body as Readable;
        const length = obj.ContentLength ?? 0;
        return { body, length, contentType: obj.ContentType ?? '', contentEncoding: obj.ContentEncoding, cacheControl: obj.CacheControl, etag: obj.ETag };
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404) return 'missing';
        if (status !== undefined && status < 500) return 'denied';
        throw err;
      }
    },
    async list(prefix) {
      const keys: ListedObject[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) {
          const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: o.Key! }));
          keys.push({ key: o.Key!, size: o.Size ?? 0, contentType: head.ContentType, contentEncoding: head.ContentEncoding, cacheControl: head.CacheControl });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys;
    },
  };
}

/** S3's ETag of a single-part object: the quoted MD5 of its bytes. */
const etagOf = (body: Buffer): string => `"${createHash('md5').update(body).digest('hex')}"`;

/** The memory files port's objects, whose paths are relative to the stage's `filesPrefix` as the S3 adapter's are. */
export function memoryFileSource(files: MemoryFiles, filesPrefix: string): FileSource {
  const headersOf = (path: string): StoredHeaders => files.headersOf(path) ?? { contentType: '' };
  return {
    async read(key) {
      if (!key.startsWith(filesPrefix)) return 'missing';
      const path = key.slice(filesPrefix.length);
      const body = await files.get(path);
      if (!body) return 'missing';
      return { ...headersOf(path), body, length: body.length, etag: etagOf(body) };
    },
    async list(prefix) {
      const out: ListedObject[] = [];
      for (const [path, o] of [...files.objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const key = `${filesPrefix}${path}`;
        if (key.startsWith(prefix)) out.push({ key, size: o.body.length, ...o.headers });
      }
      return out;
    },
  };
}
