/**
 * Internal state of the file jobs (today the folded hour series behind the recent-changes file) in the work
 * bucket: private, never behind the file host (DESIGN: besides the spec's paths the files bucket holds only
 * `answers/v1/<cap>/…`; internal state never sits where the file host serves it). S3 rather than DynamoDB:
 * a 20000-key market's series is about 25 MB, rewritten every hour (README: Interpretations).
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Services } from '../services';
import { isMissing } from './file-store';

/** Each stage has its own work bucket, so its keys need no stage prefix. */
function workBucket(svc: Services): string {
  const bucket = svc.config.workBucketName;
  if (!bucket) throw new Error('this function has no work bucket (shared/topology.ts access.workBucket)');
  return bucket;
}

/** A market's folded hour series. */
export const seriesKey = (market: string): string => `recent-series/v1/${market}.bin`;

/** The bytes stored under `key`, or null. */
export async function getWorkObject(svc: Services, key: string): Promise<Buffer | null> {
  try {
    const res = await svc.s3.send(new GetObjectCommand({ Bucket: workBucket(svc), Key: key }));
    return Buffer.from(await res.Body!.transformToByteArray());
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** Stores `data` under `key`. */
export async function putWorkObject(svc: Services, key: string, data: Uint8Array): Promise<void> {
  await svc.s3.send(new PutObjectCommand({ Bucket: workBucket(svc), Key: key, Body: data, ContentType: 'application/octet-stream' }));
}
