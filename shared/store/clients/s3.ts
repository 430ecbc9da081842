/** The S3 client of a configuration (the local S3 server in the local runtime). */
import { S3Client } from '@aws-sdk/client-s3';
import type { ClientConfig } from './options';

export function s3Client(config: ClientConfig): S3Client {
  const local = config.endpoints.s3 !== undefined;
  // Local S3 servers do not speak the SDK's default flexible checksums (aws-chunked trailers); s3rver accepts
  // only its own well-known key pair.
  return new S3Client({
    region: config.region,
    endpoint: config.endpoints.s3,
    forcePathStyle: local,
    credentials: local ? { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
