/** The S3 adapter of the files port: one bucket, every key under a prefix; an object's write time is S3's `LastModified`. */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  type PutObjectCommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { BuildMiddleware } from '@smithy/types';
import type { FileHead, FilesPort, ListedFile, StoredHeaders } from '../ports/files';
import { atPort } from './dependency-failure';

/** Whether an S3 error says the object does not exist. */
export const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Bodies from this size are sent with an unsigned payload (`x-amz-content-sha256: UNSIGNED-PAYLOAD`, as the SDK
 * does for streams): SigV4 would hash the whole body once more besides the CRC32 checksum S3 verifies (a 27 MB
 * history answer file: ~45 ms of CPU on this project's machine). The request itself stays signed; the body's
 * integrity is the CRC32 and TLS.
 */
export const UNSIGNED_FROM = 1024 * 1024;

const unsignedPayload: BuildMiddleware<PutObjectCommandInput, PutObjectCommandOutput> = (next) => (args) => {
  const request = args.request as { headers?: Record<string, string> };
  if (request.headers) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  return next(args);
};

export class S3Files implements FilesPort {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {
    // biome-ignore lint/correctness/noConstructorReturn: the port its callers get is this adapter behind atPort
    return atPort('bucket', this);
  }

  private key(path: string): string {
    return `${this.prefix}${path}`;
  }

  async put(path: string, body: Uint8Array, headers: StoredHeaders): Promise<void> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.key(path),
      Body: body,
      ContentType: headers.contentType,
      ContentEncoding: headers.contentEncoding,
      CacheControl: headers.cacheControl,
    });
    if (body.length >= UNSIGNED_FROM) command.middlewareStack.add(unsignedPayload, { step: 'build', name: 'unsignedPayload' });
    await this.s3.send(command);
  }

  async get(path: string): Promise<Buffer | null> {
    try {
      const res = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(path) }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async head(path: string): Promise<FileHead | null> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(path) }));
      return { size: head.ContentLength ?? 0, writtenAt: head.LastModified?.getTime() };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async list(prefix: string): Promise<ListedFile[]> {
    const out: ListedFile[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.key(prefix), ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) out.push({ path: o.Key.slice(this.prefix.length), lastModified: o.LastModified?.getTime() });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async delete(paths: readonly string[]): Promise<void> {
    // One object is one DeleteObject (what a function granted `delete` on one prefix needs); more go in batches.
    if (paths.length === 1) {
      await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(paths[0]) }));
      return;
    }
    for (let i = 0; i < paths.length; i += 1000) {
      const batch = paths.slice(i, i + 1000);
      const out = await this.s3.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((p) => ({ Key: this.key(p) })), Quiet: true } }),
      );
      if (out.Errors && out.Errors.length > 0) throw new Error(`${out.Errors.length} objects could not be deleted`);
    }
  }
}
