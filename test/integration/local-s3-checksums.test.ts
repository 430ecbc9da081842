/**
 * Issue 26 point 5: the functions' S3 clients keep the SDK's default flexible checksums, and the local
 * runtime adapts: its S3 endpoint (the local AWS edge, lib/local/aws-edge/s3.ts) checks each upload's stated
 * checksum as S3 does (header or `aws-chunked` trailer), refuses a wrong one with 400 `BadDigest` storing
 * nothing, hands s3rver the plain bytes, and gives a read the checksum the SDK validates.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksumOf } from '../../lib/local/aws-edge/checksums';
import { Sha256 } from '../../lib/local/aws-edge/sigv4-check';
import { s3Client } from '../../shared/store/clients/s3';
import { MarketStore } from '../../shared/store/market-store';
import { MARKET, makeBook, uploadBook } from '../support/books';
import { engineConfig } from '../support/engines';
import { type Local, startLocal } from '../support/local';

let local: Local;
/** The local S3 endpoint the functions are configured with. */
let endpoint: string;
/** s3rver itself, past the edge: what was really stored. */
let engine: S3Client;

beforeAll(async () => {
  local = await startLocal();
  endpoint = local.runtime.platform('upload').config.endpoints.s3!;
  engine = s3Client(engineConfig('s3'));
}, 180_000);
afterAll(() => local?.close());

/** A function's own client, as its composition root builds it (the SDK's defaults), with its credentials. */
const as = (fn: 'upload' | 'merge') =>
  s3Client({ ...local.runtime.platform(fn).config, credentials: local.runtime.sandboxCredentials(fn)!, endpoints: { s3: endpoint } });
const asUpload = () => as('upload');

const stored = async (key: string): Promise<Buffer | null> => {
  try {
    const res = await engine.send(new GetObjectCommand({ Bucket: local.runtime.bucketName, Key: key }));
    return Buffer.from(await res.Body!.transformToByteArray());
  } catch {
    return null;
  }
};

/** A PUT signed as the upload function, its body `aws-chunked` with a CRC32 trailer as the SDK streams one. */
async function chunkedPut(key: string, data: Buffer, trailer: string): Promise<{ status: number; body: string }> {
  const url = new URL(`${endpoint}/${local.runtime.bucketName}/${key}`);
  const chunks = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from(`\r\n0\r\nx-amz-checksum-crc32:${trailer}\r\n\r\n`)]);
  const request = new HttpRequest({
    method: 'PUT',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: {
      host: url.host,
      'content-encoding': 'aws-chunked',
      'content-length': String(chunks.length),
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'x-amz-decoded-content-length': String(data.length),
      'x-amz-trailer': 'x-amz-checksum-crc32',
      'x-amz-sdk-checksum-algorithm': 'CRC32',
    },
    body: chunks,
  });
  const signer = new SignatureV4({
    service: 's3',
    region: 'us-east-1',
    credentials: local.runtime.sandboxCredentials('upload')!,
    sha256: Sha256,
    uriEscapePath: false,
  });
  const signed = (await signer.sign(request)) as HttpRequest;
  const res = await fetch(url, { method: 'PUT', headers: signed.headers, body: chunks });
  return { status: res.status, body: await res.text() };
}

describe('S3 checksums through the local S3 endpoint', () => {
  it("uploads, merges and reads files with the functions' default clients; a read gets the upload's checksum to validate", async () => {
    expect(await local.runtime.s3.config.requestChecksumCalculation()).toBe('WHEN_SUPPORTED');
    const token = await local.apiKey((await local.user()).id);
    const book = makeBook((await local.now()) - 60_000, { keys: 50 });
    expect((await uploadBook(local, token, book)).status).toBe(200);
    await local.settle();
    const meta = await new MarketStore(local.runtime.operator.ddb, local.runtime.operator.config.tableName).meta(MARKET);
    expect(meta.seq).toBe(1);
    // A file the merge wrote, read back as a function reads it: the SDK asks for the checksum and validates the bytes.
    const files = (await fetch(`${local.base}/_local/files?prefix=${encodeURIComponent('live/v1/')}`).then((r) => r.json())) as {
      keys: Array<{ key: string }>;
    };
    expect(files.keys.length).toBeGreaterThan(0);
    const key = files.keys[0].key;
    const read = await local.runtime.s3.send(new GetObjectCommand({ Bucket: local.runtime.bucketName, Key: key, ChecksumMode: 'ENABLED' }));
    const bytes = Buffer.from(await read.Body!.transformToByteArray());
    expect(read.ChecksumCRC32).toBe(checksumOf('crc32', bytes));
    // s3rver holds the plain bytes, no checksum header or chunk framing in them.
    expect((await stored(key))?.equals(bytes)).toBe(true);
  }, 180_000);

  it('refuses an upload whose stated CRC32 is wrong with 400 BadDigest, storing nothing', async () => {
    const s3 = asUpload();
    const key = 'books/v1/checksum-header-test';
    const err = await s3
      .send(
        new PutObjectCommand({
          Bucket: local.runtime.bucketName,
          Key: key,
          Body: Buffer.from('a book'),
          ChecksumCRC32: checksumOf('crc32', Buffer.from('another')),
        }),
      )
      .catch((e: unknown) => e as { name: string; $metadata: { httpStatusCode: number } });
    expect(err).toMatchObject({ name: 'BadDigest', $metadata: { httpStatusCode: 400 } });
    expect(await stored(key)).toBeNull();
    await s3.send(new PutObjectCommand({ Bucket: local.runtime.bucketName, Key: key, Body: Buffer.from('a book') }));
    expect((await stored(key))?.toString()).toBe('a book');
  });

  it('decodes an aws-chunked upload, checks its CRC32 trailer and refuses a corrupted one with 400 BadDigest', async () => {
    const data = Buffer.from('streamed bytes of a book');
    const bad = await chunkedPut('books/v1/chunked-bad', data, checksumOf('crc32', Buffer.from('corrupted')));
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('<Code>BadDigest</Code>');
    expect(await stored('books/v1/chunked-bad')).toBeNull();
    const good = await chunkedPut('books/v1/chunked-good', data, checksumOf('crc32', data));
    expect(good.status).toBe(200);
    expect((await stored('books/v1/chunked-good'))?.equals(data)).toBe(true);
    // The merge reads books.
    const read = await as('merge').send(new GetObjectCommand({ Bucket: local.runtime.bucketName, Key: 'books/v1/chunked-good', ChecksumMode: 'ENABLED' }));
    expect(read.ChecksumCRC32).toBe(checksumOf('crc32', data));
    expect(Buffer.from(await read.Body!.transformToByteArray()).equals(data)).toBe(true);
  });
});
