/**
 * Issue 26 point 5: production code is not weakened for the emulator. The S3 client the functions build uses
 * the SDK's default flexible checksums (every upload states a CRC32, every read is validated when S3 gives
 * one), the same with a local endpoint as on AWS: the local runtime's S3 endpoint adapts to it.
 */
import { describe, expect, it } from 'vitest';
import { s3Client } from '../../shared/store/clients/s3';

describe('the production S3 client', () => {
  for (const [where, endpoints] of [
    ['on AWS', {}],
    ['against a local endpoint', { s3: 'http://127.0.0.1:1' }],
  ] as const) {
    it(`keeps the SDK's default checksums ${where} (no requestChecksumCalculation/responseChecksumValidation override)`, async () => {
      const client = s3Client({ region: 'eu-west-1', endpoints, connectionsEndpoint: 'https://example.com' });
      expect(await client.config.requestChecksumCalculation()).toBe('WHEN_SUPPORTED');
      expect(await client.config.responseChecksumValidation()).toBe('WHEN_SUPPORTED');
    });
  }
});
