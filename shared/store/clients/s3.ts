/** The S3 client of a configuration (the local AWS edge's S3 endpoint in the local runtime). */
import { S3Client } from '@aws-sdk/client-s3';
import type { ClientConfig } from './options';

/**
 * The SDK's defaults, checksums included (each upload states a CRC32 S3 checks; reads are validated against
 * it): the local runtime's S3 endpoint speaks them (lib/local/aws-edge/s3.ts), so nothing here bends for it.
 * A local endpoint is addressed by path, as it serves every bucket on one host.
 */
export function s3Client(config: ClientConfig): S3Client {
  return new S3Client({
    region: config.region,
    endpoint: config.endpoints.s3,
    forcePathStyle: config.endpoints.s3 !== undefined,
    credentials: config.credentials,
  });
}
