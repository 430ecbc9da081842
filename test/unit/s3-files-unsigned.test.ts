/**
 * Issue 27 point 3: a large file (a 27 MB history answer written to `answers/`) is put with an unsigned
 * payload, so SigV4 does not hash the whole body once more; the request stays signed and states the CRC32
 * S3 verifies. Small bodies keep a signed payload hash. The SDK's own pipeline runs; only the socket is stubbed.
 */
import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3Files, UNSIGNED_FROM } from '../../shared/store/s3-files';

function capturing(): { files: S3Files; sent: Array<Record<string, string>> } {
  const sent: Array<Record<string, string>> = [];
  const s3 = new S3Client({
    region: 'eu-west-1',
    endpoint: 'https://s3.example.test',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: {
      handle: async (request: { headers: Record<string, string> }) => {
        sent.push({ ...request.headers });
        return { response: { statusCode: 200, headers: {}, body: Readable.from([]) } };
      },
    } as never,
  });
  return { files: new S3Files(s3, 'bucket', 'p/'), sent };
}

describe('S3 puts of large bodies (issue 27 point 3)', () => {
  it('sends a body from UNSIGNED_FROM bytes with an unsigned payload, still signed and with its CRC32', async () => {
    const { files, sent } = capturing();
    await files.put('answers/v1/x/1.json', Buffer.alloc(UNSIGNED_FROM, 49), { contentType: 'application/json' });
    expect(sent).toHaveLength(1);
    const headers = Object.fromEntries(Object.entries(sent[0]).map(([k, v]) => [k.toLowerCase(), v]));
    expect(headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
    expect(headers.authorization).toContain('x-amz-content-sha256');
    expect(headers['x-amz-checksum-crc32']).toMatch(/^[A-Za-z0-9+/]{6}==$/);
  });

  it('keeps a signed payload hash for a smaller body', async () => {
    const { files, sent } = capturing();
    await files.put('live/v1/x.json', Buffer.alloc(UNSIGNED_FROM - 1, 49), { contentType: 'application/json' });
    const headers = Object.fromEntries(Object.entries(sent[0]).map(([k, v]) => [k.toLowerCase(), v]));
    expect(headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
  });
});
