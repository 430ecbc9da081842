/**
 * Issue 26 point 5: S3 stamps `LastModified` with its own clock, which is the service's; s3rver stamps the
 * machine's wall clock. So the local AWS edge (lib/local/aws-edge/write-times.ts) records the service-clock
 * time of each write and answers it as `LastModified` in HeadObject, GetObject and ListObjectsV2, and the
 * production code reads LastModified only (no `written` metadata, no HEAD of live/ by retention).
 */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../shared/clock';
import { s3Client } from '../../shared/store/clients/s3';
import { engineConfig } from '../support/engines';
import { type Local, startLocal } from '../support/local';

let local: Local;
let endpoint: string;

beforeAll(async () => {
  local = await startLocal();
  endpoint = local.runtime.platform('snapshot').config.endpoints.s3!;
}, 180_000);
afterAll(() => local?.close());

/** The snapshot function's own client (it writes and reads snap/), with its credentials, through the edge. */
const asSnapshot = (): S3Client =>
  s3Client({ ...local.runtime.platform('snapshot').config, credentials: local.runtime.sandboxCredentials('snapshot')!, endpoints: { s3: endpoint } });
/** The retention function's own client (it lists snap/). */
const asRetention = (): S3Client =>
  s3Client({ ...local.runtime.platform('retention').config, credentials: local.runtime.sandboxCredentials('retention')!, endpoints: { s3: endpoint } });

const toSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

describe("the local S3 edge answers LastModified at the service clock's time", () => {
  it('gives HEAD, GET and list the time of the write on the moved clock, not the wall clock', async () => {
    const Bucket = local.runtime.bucketName;
    // Ten days back and forth from the wall clock: s3rver's own stamp could not match either.
    const first = await local.setClock(Date.now() - 10 * DAY_MS);
    const Key = 'snap/v1/clock-test/1.json';
    await asSnapshot().send(new PutObjectCommand({ Bucket, Key, Body: '{"a":1}', ContentType: 'application/json' }));
    const moved = await local.advance(20 * DAY_MS);
    const Key2 = 'snap/v1/clock-test/2.json';
    await asSnapshot().send(new PutObjectCommand({ Bucket, Key: Key2, Body: '{"a":2}', ContentType: 'application/json' }));

    const head = await asSnapshot().send(new HeadObjectCommand({ Bucket, Key }));
    expect(head.LastModified?.getTime()).toBe(toSecond(first));
    expect(head.Metadata ?? {}).toEqual({});
    const got = await asSnapshot().send(new GetObjectCommand({ Bucket, Key: Key2 }));
    expect(got.LastModified?.getTime()).toBe(toSecond(moved));
    expect(await got.Body!.transformToString()).toBe('{"a":2}');

    const listed = await asRetention().send(new ListObjectsV2Command({ Bucket, Prefix: 'snap/v1/clock-test/' }));
    expect(listed.Contents?.map((c) => [c.Key, c.LastModified?.getTime()])).toEqual([
      [Key, toSecond(first)],
      [Key2, toSecond(moved)],
    ]);
    // What s3rver itself keeps is its wall-clock time: the edge, not the store, answers the service's.
    const engine = s3Client(engineConfig('s3'));
    const raw = await engine.send(new HeadObjectCommand({ Bucket, Key }));
    expect(Math.abs(raw.LastModified!.getTime() - Date.now())).toBeLessThan(DAY_MS);
  });
});
