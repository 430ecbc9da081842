import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilePath } from '../../shared/domain/file-paths';
import { retainFiles } from '../../shared/files/file-retention';
import { type Local, startLocal } from '../support/local';
import { HOUR, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Issue 10 point 6: the files bucket holds only the spec's paths (the snapshot job's folded series lives in
 * the private work bucket), and the file host answers as CloudFront with origin access control in front of
 * S3 (read and list, a default root object that is never written): 404 for anything that is not an object,
 * never a listing, naming no key.
 */
describe('file host and files bucket', () => {
  let local: Local;
  let published: string[];

  const bucketKeys = async (bucket: string): Promise<string[]> => {
    const out = await local.runtime.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (out.Contents ?? []).map((o) => o.Key ?? '');
  };

  beforeAll(async () => {
    local = await startLocal();
    const start = await local.now();
    const key = await uploaderKey(local);
    await uploadAt(local, key, start + 5 * MINUTE, [
      [2589, 100, 3],
      [2592, 200, 1],
    ]);
    // Two snapshot runs: the second reads the series the first stored.
    for (const h of [1, 2]) {
      await local.setClock(Math.floor(start / HOUR) * HOUR + h * HOUR + MINUTE);
      await local.tick();
    }
    published = await bucketKeys(local.runtime.bucketName);
  });
  afterAll(() => local.close());

  it('keeps only the spec’s paths in the files bucket and the folded series in the work bucket', async () => {
    expect(published.some((k) => k.startsWith('recent/v1/'))).toBe(true);
    for (const key of published) expect(parseFilePath(key) !== null || key.startsWith('answers/v1/') || key.startsWith('releases/'), key).toBe(true);
    expect(published.filter((k) => k.startsWith('work/'))).toEqual([]);
    expect(await bucketKeys(local.runtime.workBucketName)).toEqual([`recent-series/v1/${MARKET}.bin`]);
  });

  it('answers the root, directory paths, listing queries and missing keys 404, revealing no key', async () => {
    const paths = [
      '',
      '?list-type=2',
      '?prefix=',
      '?prefix=snap/&delimiter=/',
      '?delimiter=/',
      '?versions',
      'snap/',
      `snap/v1/${MARKET}/`,
      'recent/v1/',
      'nothing.json',
      `snap/v1/${MARKET}/1.json.gz`,
      '%ZZ',
      'work/v1/',
    ];
    for (const p of paths) {
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(`${local.base}/cdn/${p}`, { method });
        const text = await res.text();
        expect(res.status, `${method} /cdn/${p}`).toBe(404);
        expect(text, p).not.toMatch(/ListBucketResult|<Key>|<Contents>/);
        for (const key of published) expect(text.includes(key), `${p} names ${key}`).toBe(false);
        expect(text.includes(MARKET)).toBe(false);
      }
    }
  });

  it('still serves an existing file, with its query string ignored as CloudFront does', async () => {
    const pointer = `snap/v1/${MARKET}/latest.json`;
    expect(published).toContain(pointer);
    for (const q of ['', '?list-type=2', '?prefix=']) {
      const res = await fetch(`${local.base}/cdn/${pointer}${q}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ v: 1, market: MARKET });
    }
  });

  it('refuses other methods with 403 as the distribution does', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'])
      expect((await fetch(`${local.base}/cdn/snap/v1/${MARKET}/latest.json`, { method })).status, method).toBe(403);
  });

  it('deletes internal state an older version left in the files bucket', async () => {
    const legacy = `work/v1/${MARKET}/recent-series.bin`;
    await local.runtime.s3.send(new PutObjectCommand({ Bucket: local.runtime.bucketName, Key: legacy, Body: Buffer.from([3, 0, 0]) }));
    const result = await retainFiles(local.runtime.operator);
    expect(result.prefixes).toContainEqual({ prefix: 'work/', files: 1, deleted: 1 });
    expect(await bucketKeys(local.runtime.bucketName)).not.toContain(legacy);
  });
});
