/** The files and work bucket ports (functions whose manifest access names a bucket). */
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config';
import type { ClientConfig } from '../store/clients/options';
import { s3Client } from '../store/clients/s3';
import { S3Files } from '../store/s3-files';
import { tracedClient } from '../telemetry/tracing';
import type { Buckets } from './platform';

/** The files bucket under the stage's prefix and the private work bucket, over one S3 client. */
export const bucketsOver = (s3: S3Client, config: Pick<Config, 'bucketName' | 'filesPrefix' | 'workBucketName'>): Buckets => ({
  files: new S3Files(s3, config.bucketName, config.filesPrefix),
  work: new S3Files(s3, config.workBucketName, ''),
});

/** The Lambda entry's factory (`awsPlatform({ buckets: s3Buckets, … })`): the buckets over a traced S3 client. */
export const s3Buckets = (config: ClientConfig & Pick<Config, 'bucketName' | 'filesPrefix' | 'workBucketName'>): Buckets =>
  bucketsOver(tracedClient(s3Client(config)), config);
