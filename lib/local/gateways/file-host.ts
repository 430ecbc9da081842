/**
 * The file host at `{base}/cdn/`, answering as CloudFront in front of the files bucket with origin access
 * control does (lib/constructs/files-bucket.ts): objects with the headers they were stored with
 * (Content-Type, Content-Encoding, Cache-Control) and CORS for the deployment's origins, as the
 * response-headers policy does. CloudFront may read and list the bucket, so S3 answers a missing key 404
 * NoSuchKey (the spec's "a 404 would be cached at the edge"); `/` asks for the default root object, which is
 * never written, and a directory path (`snap/`) is a key no object has: both 404, never a listing. CloudFront
 * forwards no query string, so `?list-type=2` or `?prefix=` reach S3 as the bare path. Nothing but an
 * object's own bytes names a key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileSource } from './file-source';
import { sendJson } from './http-events';

/** S3's longest key; a longer one is S3's 400 `KeyTooLongError`, before any permission check. */
const KEY_MAX_BYTES = 1024;

/** S3's error document as CloudFront passes it through (no key, no bucket name). */
const s3Error = (code: string, message: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

export class FileHost {
  constructor(
    /** The files bucket: s3rver's or the memory files port (lib/local/gateways/file-source.ts). */
    private readonly source: FileSource,
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
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(403, 'MethodNotAllowed', 'This distribution is not configured to allow the HTTP request method');
    const missing = () => refuse(404, 'NoSuchKey', 'The specified key does not exist.');
    let key: string;
    try {
      key = decodeURIComponent(path);
    } catch {
      return missing();
    }
    if (Buffer.byteLength(key) > KEY_MAX_BYTES) return refuse(400, 'KeyTooLongError', 'Your key is too long');
    // `/` is the default root object (never written); a key ending in `/` is never an object. Neither lists.
    if (key === '' || key.endsWith('/')) return missing();
    let obj: Awaited<ReturnType<FileSource['read']>>;
    try {
      obj = await this.source.read(key);
    } catch {
      return sendJson(res, 503, { error: 'unavailable' }, cors);
    }
    if (obj === 'missing') return missing();
    if (obj === 'denied') return refuse(403, 'AccessDenied', 'Access Denied');
    const headers: Record<string, string> = { ...cors, 'content-length': String(obj.length) };
    if (obj.contentType) headers['content-type'] = obj.contentType;
    if (obj.contentEncoding) headers['content-encoding'] = obj.contentEncoding;
    if (obj.cacheControl) headers['cache-control'] = obj.cacheControl;
    if (obj.etag) headers.etag = obj.etag;
    res.writeHead(200, headers);
    const { body } = obj;
    if (!(body instanceof Readable)) {
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (req.method === 'HEAD') {
      body.destroy();
      res.end();
      return;
    }
    // Streamed as CloudFront does: a 27 MB answer file reaches the client while it is still being read, and is not
    // copied whole first. A read that breaks after the head was sent can only cut the answer short (the client
    // sees it shorter than its length).
    await pipeline(body, res).catch(() => res.destroy());
  }
}
