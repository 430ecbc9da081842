/**
 * S3 at the local AWS edge (lib/local/aws-edge/edge.ts), in front of s3rver: which S3 operation a REST
 * request is (so IAM and the manifest grants can judge it as AWS would), and the forwarding that adapts the
 * SDK's default client to s3rver. Uploads arrive with a flexible checksum (a header, or the trailer of an
 * `aws-chunked` body): checked here as S3 checks it (a wrong one is 400 `BadDigest`, nothing stored), the
 * plain bytes handed to s3rver, the checksum kept in the object's metadata; a GetObject/HeadObject asking
 * for it (`x-amz-checksum-mode: ENABLED`, the SDK's default) gets it back as S3 answers it, so the SDK
 * validates the bytes it reads against the ones that were uploaded. Every write is stamped with the service
 * clock's time, and answers give it as `LastModified` (lib/local/aws-edge/write-times.ts).
 */
import { request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { ChecksumRefusal, checksumHeader, decodeAwsChunked, verifiedChecksum } from './checksums';
import { STORED_WRITTEN, WRITES, type WriteTimes, xmlUnescape } from './write-times';

/** The metadata entry (on s3rver) holding an object's upload checksum: `<algorithm>:<base64>`; never shown to callers. */
const STORED_CHECKSUM = 'x-amz-meta-local-edge-checksum';

/** One S3 REST request as the SDK command it is, with the input fields IAM and the grants read. */
export interface S3Operation {
  command: string;
  input: { Bucket?: string; Key?: string; Prefix?: string; CopySource?: string; Delete?: { Objects: Array<{ Key: string }> } };
}

/** The operation of a path-style request (`/<bucket>[/<key>]?<query>`). */
export function s3Operation(method: string, url: URL, headers: IncomingHttpHeaders, body: Buffer): S3Operation {
  const [, bucketPart = '', ...rest] = url.pathname.split('/');
  const Bucket = decodeURIComponent(bucketPart);
  const rawKey = rest.join('/');
  const q = url.searchParams;
  if (rawKey === '') {
    switch (method) {
      case 'GET':
        return { command: q.get('list-type') === '2' ? 'ListObjectsV2Command' : 'ListObjectsCommand', input: { Bucket, Prefix: q.get('prefix') ?? undefined } };
      case 'POST':
        if (q.has('delete')) {
          const Objects = [...body.toString('utf8').matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((m) => ({ Key: xmlUnescape(m[1]) }));
          return { command: 'DeleteObjectsCommand', input: { Bucket, Delete: { Objects } } };
        }
        return { command: 'PostBucketCommand', input: { Bucket } };
      default:
        return { command: `${{ HEAD: 'HeadBucket', PUT: 'CreateBucket', DELETE: 'DeleteBucket' }[method] ?? method}Command`, input: { Bucket } };
    }
  }
  const Key = decodeURIComponent(rawKey);
  const copy = headers['x-amz-copy-source'];
  switch (method) {
    case 'GET':
      return { command: q.has('uploadId') ? 'ListPartsCommand' : 'GetObjectCommand', input: { Bucket, Key } };
    case 'HEAD':
      return { command: 'HeadObjectCommand', input: { Bucket, Key } };
    case 'PUT':
      if (typeof copy === 'string')
        return { command: q.has('partNumber') ? 'UploadPartCopyCommand' : 'CopyObjectCommand', input: { Bucket, Key, CopySource: copy } };
      return { command: q.has('partNumber') ? 'UploadPartCommand' : 'PutObjectCommand', input: { Bucket, Key } };
    case 'POST':
      return { command: q.has('uploads') ? 'CreateMultipartUploadCommand' : 'CompleteMultipartUploadCommand', input: { Bucket, Key } };
    case 'DELETE':
      return { command: q.has('uploadId') ? 'AbortMultipartUploadCommand' : 'DeleteObjectCommand', input: { Bucket, Key } };
    default:
      return { command: `${method}ObjectCommand`, input: { Bucket, Key } };
  }
}

/** S3's error document. */
export function sendS3Error(res: ServerResponse, method: string, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const fields = Object.entries(extra)
    .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
    .join('');
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message>${fields}</Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)) });
  res.end(method === 'HEAD' ? undefined : body);
}

/** Request headers s3rver is not given: the caller's signature (s3rver is reached anonymously) and what the decoding consumed. */
const DROPPED = new Set([
  'authorization',
  'host',
  'connection',
  'expect',
  'transfer-encoding',
  'content-length',
  'x-amz-content-sha256',
  'x-amz-security-token',
  'x-amz-date',
  'x-amz-decoded-content-length',
  'x-amz-trailer',
  'x-amz-sdk-checksum-algorithm',
  'x-amz-checksum-type',
  'amz-sdk-invocation-id',
  'amz-sdk-request',
]);

/** The upload's bytes and checksum: the body decoded when `aws-chunked`, the stated checksum checked. */
function uploadOf(headers: IncomingHttpHeaders, body: Buffer): { data: Buffer; checksum: { algorithm: string; value: string } | null; encoding?: string } {
  const encodings = String(headers['content-encoding'] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const chunked = encodings.includes('aws-chunked');
  const stated: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.startsWith('x-amz-checksum-') && typeof value === 'string') stated[name] = value;
  let data = body;
  if (chunked) {
    const decoded = decodeAwsChunked(body);
    data = decoded.data;
    const declared = headers['x-amz-decoded-content-length'];
    if (declared !== undefined && Number(declared) !== data.length)
      throw new ChecksumRefusal('IncompleteBody', 'You did not provide the number of bytes specified by the x-amz-decoded-content-length HTTP header');
    const trailer = String(headers['x-amz-trailer'] ?? '').toLowerCase();
    if (trailer) {
      if (decoded.trailers[trailer] === undefined) throw new ChecksumRefusal('InvalidRequest', `The trailer ${trailer} the request declares is missing`);
      stated[trailer] = decoded.trailers[trailer];
    }
  }
  const rest = encodings.filter((e) => e !== 'aws-chunked');
  return { data, checksum: verifiedChecksum(data, stated), encoding: rest.length > 0 ? rest.join(', ') : undefined };
}

/**
 * Forwards one S3 request to s3rver (`target`: its origin) and answers the caller, adapting checksums both
 * ways and `LastModified` to the service clock (`times`). Throws a ChecksumRefusal (before anything is stored) for an upload S3 would refuse.
 */
export async function forwardS3(
  target: string,
  method: string,
  url: URL,
  headers: IncomingHttpHeaders,
  body: Buffer,
  res: ServerResponse,
  op: S3Operation,
  times: WriteTimes,
): Promise<void> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED.has(name) || name.startsWith('x-amz-checksum-') || name === STORED_CHECKSUM || name === STORED_WRITTEN) continue;
    out[name] = Array.isArray(value) ? value.join(',') : value;
  }
  let data = body;
  // Every body S3 takes is checked against its stated checksum (DeleteObjects' list too); only an object keeps it.
  if (method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') {
    const upload = uploadOf(headers, body);
    data = upload.data;
    delete out['content-encoding'];
    if (upload.encoding) out['content-encoding'] = upload.encoding;
    if (upload.checksum && op.command === 'PutObjectCommand') out[STORED_CHECKSUM] = `${upload.checksum.algorithm}:${upload.checksum.value}`;
  }
  if (method !== 'GET' && method !== 'HEAD') out['content-length'] = String(data.length);
  const bucket = op.input.Bucket ?? '';
  const key = op.input.Key ?? '';
  const writtenAt = WRITES.has(op.command) ? times.stamp() : null;
  // A copy keeps its source's metadata unless told to replace it; its write time then stays in memory only.
  if (writtenAt !== null) out[STORED_WRITTEN] = String(writtenAt);
  const listing = op.command === 'ListObjectsV2Command' || op.command === 'ListObjectsCommand';
  const wantsChecksum = String(headers['x-amz-checksum-mode'] ?? '').toUpperCase() === 'ENABLED';
  await new Promise<void>((resolve, reject) => {
    const upstream = httpRequest(new URL(`${url.pathname}${url.search}`, target), { method, headers: out }, (answer) => {
      const back: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined || name === STORED_CHECKSUM || name === STORED_WRITTEN || name === 'connection' || name === 'keep-alive') continue;
        back[name] = value;
      }
      const ok = answer.statusCode !== undefined && answer.statusCode < 300;
      if (ok && writtenAt !== null) times.wrote(bucket, key, writtenAt);
      if (ok && op.command === 'DeleteObjectCommand') times.deleted(bucket, [key]);
      if (ok && op.command === 'DeleteObjectsCommand') times.deleted(bucket, op.input.Delete?.Objects.map((o) => o.Key) ?? []);
      if (ok && (op.command === 'GetObjectCommand' || op.command === 'HeadObjectCommand')) {
        const at = times.fromAnswer(bucket, key, answer.headers[STORED_WRITTEN]);
        if (at !== null) back['last-modified'] = new Date(at).toUTCString();
      }
      const stored = answer.headers[STORED_CHECKSUM];
      // S3 gives the upload's checksum of a whole object to a caller that asks; never of a range.
      if (typeof stored === 'string' && wantsChecksum && answer.statusCode === 200) {
        const [algorithm, value] = stored.split(':');
        back[checksumHeader(algorithm as 'crc32')] = value;
        back['x-amz-checksum-type'] = 'FULL_OBJECT';
      }
      if (ok && listing) {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('error', reject);
        answer.on('end', () => {
          times
            .rewriteList(bucket, Buffer.concat(parts).toString('utf8'))
            .then((xml) => {
              const text = Buffer.from(xml);
              delete back['transfer-encoding'];
              back['content-length'] = String(text.length);
              res.writeHead(answer.statusCode ?? 502, back);
              res.end(text);
              resolve();
            })
            .catch(reject);
        });
        return;
      }
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
      answer.on('end', resolve);
      answer.on('error', reject);
    });
    upstream.on('error', reject);
    upstream.end(method === 'GET' || method === 'HEAD' ? undefined : data);
  });
}
