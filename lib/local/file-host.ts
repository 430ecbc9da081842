/**
 * The file host at `{base}/cdn/`: serves the files bucket's objects with the headers they were stored with
 * (Content-Type, Content-Encoding, Cache-Control), and answers CORS for the deployment's origins as the
 * CloudFront response-headers policy does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { sendJson } from './http-events';

export class FileHost {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly allowOrigin: (origin: string) => boolean,
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    const origin = req.headers.origin;
    const cors: Record<string, string> = origin && this.allowOrigin(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : {};
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET, HEAD', 'access-control-max-age': '600' }).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method_not_allowed' }, cors);
      return;
    }
    let key2: string;
    try {
      key2 = decodeURIComponent(key);
    } catch {
      sendJson(res, 404, { error: 'not_found' }, cors);
      return;
    }
    try {
      const obj = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key2 }));
      const data = Buffer.from(await obj.Body!.transformToByteArray());
      const headers: Record<string, string> = { ...cors, 'content-length': String(data.length) };
      if (obj.ContentType) headers['content-type'] = obj.ContentType;
      if (obj.ContentEncoding) headers['content-encoding'] = obj.ContentEncoding;
      if (obj.CacheControl) headers['cache-control'] = obj.CacheControl;
      if (obj.ETag) headers.etag = obj.ETag;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : data);
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number }; name?: string }).$metadata?.httpStatusCode;
      if (status === 404 || (err as { name?: string }).name === 'NoSuchKey') sendJson(res, 404, { error: 'not_found' }, cors);
      else sendJson(res, 503, { error: 'unavailable' }, cors);
    }
  }
}
