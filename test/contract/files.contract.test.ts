/**
 * The files port's contract, run against the S3 adapter (on the local S3 server behind the local AWS edge,
 * whose `LastModified` is the service clock's as S3's is, under a stage prefix) and the in-memory fake: what
 * one does, the other does, so unit tests on the fake say something about the adapter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { EdgeAccess } from '../../lib/local/aws-edge/access';
import { AwsEdge, OPERATOR_KEY } from '../../lib/local/aws-edge/edge';
import { ManualClock } from '../../shared/clock';
import type { FilesPort } from '../../shared/ports/files';
import { s3Client } from '../../shared/store/clients/s3';
import { MemoryFiles } from '../../shared/store/memory/files';
import { S3Files } from '../../shared/store/s3-files';
import { engineConfig, freshBucket } from '../support/engines';

const edges: AwsEdge[] = [];
afterAll(() => Promise.all(edges.map((e) => e.close())));

/** A local AWS edge in front of the run's s3rver on `clock`, reached with the operator key (no function's IAM). */
async function edgeS3(clock: ManualClock) {
  const engine = engineConfig('s3');
  const edge = await AwsEdge.start({
    host: '127.0.0.1',
    dynamodb: engine.endpoints.dynamodb!,
    s3: engine.endpoints.s3!,
    secretOf: (key) => (key === OPERATOR_KEY ? 'operator-secret' : undefined),
    faults: { storage: 'up', table: 'up' },
    // Only the operator calls: the edge asks no policy of it.
    access: {} as EdgeAccess,
    names: { region: 'us-east-1', account: '000000000000', table: 't', bucket: 'b', work: 'w', filesPrefix: '', liveApiId: 'l', liveStage: 's' },
    recorder: null,
    now: () => clock.now(),
    log: () => undefined,
  });
  edges.push(edge);
  return s3Client({ ...engine, endpoints: { s3: edge.url }, credentials: { accessKeyId: OPERATOR_KEY, secretAccessKey: 'operator-secret' } });
}

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);

const variants: Array<[string, (clock: ManualClock) => Promise<FilesPort>]> = [
  [
    's3',
    async (clock) => {
      const { bucket } = await freshBucket();
      return new S3Files(await edgeS3(clock), bucket, 'preview-contract/');
    },
  ],
  ['memory', async (clock) => new MemoryFiles(clock)],
];

describe.each(variants)('files port (%s)', (_name, make) => {
  const json = { contentType: 'application/json', cacheControl: 'public, max-age=60' };

  it('gives back what was put, with its size and the service-clock time of the write', async () => {
    const clock = new ManualClock(T0);
    const files = await make(clock);
    await files.put('snap/v1/m/1.json', Buffer.from('{"a":1}'), json);
    expect((await files.get('snap/v1/m/1.json'))?.toString()).toBe('{"a":1}');
    expect(await files.head('snap/v1/m/1.json')).toEqual({ size: 7, writtenAt: T0 });
  });

  it('answers null for a missing object, get and head alike', async () => {
    const files = await make(new ManualClock(T0));
    expect(await files.get('nothing/here.json')).toBeNull();
    expect(await files.head('nothing/here.json')).toBeNull();
  });

  it('replaces an object put again at the same path', async () => {
    const clock = new ManualClock(T0);
    const files = await make(clock);
    await files.put('items/v1/current.json', Buffer.from('old'), json);
    clock.advance(5000);
    await files.put('items/v1/current.json', Buffer.from('newer'), json);
    expect((await files.get('items/v1/current.json'))?.toString()).toBe('newer');
    expect(await files.head('items/v1/current.json')).toEqual({ size: 5, writtenAt: T0 + 5000 });
  });

  it('lists the objects under a prefix in key order, paths relative to the stage prefix', async () => {
    const files = await make(new ManualClock(T0));
    for (const p of ['live/v1/m/3.json', 'live/v1/m/1.json', 'live/v1/n/2.json', 'snap/v1/m/1.json']) await files.put(p, Buffer.from(p), json);
    expect((await files.list('live/v1/m/')).map((f) => f.path)).toEqual(['live/v1/m/1.json', 'live/v1/m/3.json']);
    expect((await files.list('live/')).map((f) => f.path)).toEqual(['live/v1/m/1.json', 'live/v1/m/3.json', 'live/v1/n/2.json']);
    expect(await files.list('none/')).toEqual([]);
  });

  it("lists each object with the service clock's time of its write, to the second as S3 keeps it", async () => {
    const clock = new ManualClock(T0 + 250);
    const files = await make(clock);
    await files.put('live/v1/m/1.json', Buffer.from('1'), json);
    clock.advance(3 * 24 * 3600_000);
    await files.put('live/v1/m/2.json', Buffer.from('2'), json);
    expect(await files.list('live/')).toEqual([
      { path: 'live/v1/m/1.json', lastModified: T0 },
      { path: 'live/v1/m/2.json', lastModified: T0 + 3 * 24 * 3600_000 },
    ]);
    expect(await files.head('live/v1/m/1.json')).toEqual({ size: 1, writtenAt: T0 });
  });

  it('deletes one object, many objects, and missing ones without complaint', async () => {
    const files = await make(new ManualClock(T0));
    for (const p of ['a/1', 'a/2', 'a/3', 'b/1']) await files.put(p, Buffer.from(p), json);
    await files.delete(['a/1']);
    await files.delete(['a/2', 'a/3', 'a/missing']);
    await files.delete(['nothing']);
    expect((await files.list('')).map((f) => f.path)).toEqual(['b/1']);
    expect(await files.get('a/1')).toBeNull();
  });

  it('keeps binary bodies byte for byte', async () => {
    const files = await make(new ManualClock(T0));
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
    await files.put('work/series.bin', bytes, { contentType: 'application/octet-stream' });
    expect([...((await files.get('work/series.bin')) ?? [])]).toEqual([...bytes]);
  });
});
