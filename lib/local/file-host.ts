/**
 * The file host at `{base}/cdn/`, answering as CloudFront in front of the files bucket with origin access
 * control does (lib/constructs/files-bucket.ts): objects with the headers they were stored with
 * (Content-Type, Content-Encoding, Cache-Control) and CORS for the deployment's origins, as the
 * response-headers policy does. The distribution's access is `s3:GetObject` only, without `s3:ListBucket`,
 * so S3 answers everything that is not an object 403 AccessDenied, and CloudFront passes it on: a missing
 * key, `/`, a directory path (`snap/`) and any listing query (CloudFront forwards no query string, so
 * `?list-type=2` or `?prefix=` reach S3 as the bare path). Nothing but an object's own bytes names a key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { sendJson } from './http-events';

/** S3's longest key; a longer one is S3's 400 `KeyTooLongError`, before any permission check. */
const KEY_MAX_BYTES = 1024;

/** S3's error document as CloudFront passes it through (no key, no bucket name). */
const s3Error = (code: string, message: string): string => `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

export class FileHost {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly allowOrigin: (origin: string) => boolean,
  ) {}

  /** `path` is the request path after `/cdn/`, still percent-encoded; the query string never reaches here. */
  async serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const origin = req.headers.origin;
    const cors: Record<string, string> = origin && this.allowOrigin(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : {};
    const refuse = (status: number, code: string, message: string) => {
      const body = s3Error(code, message);
      res.writeHead(status, { ...cors, 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET, HEAD', 'access-control-max-age': '600' }).end();
      return;
    }
    // The distribution allows GET, HEAD and OPTIONS; CloudFront refuses other methods with 403.
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(403, 'MethodNotAllowed', 'This distribution is not configured to allow the HTTP request method');
    let key: string;
    try {
      key = decodeURIComponent(path);
    } catch {
      return refuse(403, 'AccessDenied', 'Access Denied');
    }
    if (Buffer.byteLength(key) > KEY_MAX_BYTES) return refuse(400, 'KeyTooLongError', 'Your key is too long');
    // The bucket root is a listing and a key ending in `/` is never an object: S3 denies both without s3:ListBucket.
    if (key === '' || key.endsWith('/')) return refuse(403, 'AccessDenied', 'Access Denied');
    try {
      const obj = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const data = Buffer.from(await obj.Body!.transformToByteArray());
      const headers: Record<string, string> = { ...cors, 'content-length': String(data.length) };
      if (obj.ContentType) headers['content-type'] = obj.ContentType;
      if (obj.ContentEncoding) headers['content-encoding'] = obj.ContentEncoding;
      if (obj.CacheControl) headers['cache-control'] = obj.CacheControl;
      if (obj.ETag) headers.etag = obj.ETag;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : data);
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      // Without s3:ListBucket a missing key is AccessDenied too, so a 403 never tells whether a key exists.
      if (status !== undefined && status < 500) refuse(403, 'AccessDenied', 'Access Denied');
      else sendJson(res, 503, { error: 'unavailable' }, cors);
    }
  }
}
