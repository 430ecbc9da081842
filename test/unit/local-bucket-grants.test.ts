import { describe, expect, it } from 'vitest';
import { bucketDenial } from '../../lib/local/iam/grants';

/** The local bucket grant rule (lib/local/iam/grants.ts), shared by the in-process middleware and the bundles' sandboxes. */
describe('bucket grants of the local runtime', () => {
  const buckets = { filesPrefix: '', work: 'market-work-x' };
  const deny = (fn: Parameters<typeof bucketDenial>[0], command: string, input: Record<string, unknown>) => bucketDenial(fn, command, input, buckets);

  it('allows what the manifest grants and names what it does not', () => {
    expect(deny('pages', 'GetObjectCommand', { Bucket: 'files', Key: 'items/v1/1.json' })).toBeNull();
    expect(deny('pages', 'GetObjectCommand', { Bucket: 'files', Key: 'books/v1/x' })).toBe(
      'AccessDenied: pages may not read books/v1/x (shared/topology.ts grants it nothing there)',
    );
    expect(deny('pages', 'PutObjectCommand', { Bucket: 'files', Key: 'items/v1/1.json' })).toMatch(/^AccessDenied: pages may not write items\/v1\/1\.json/);
    expect(deny('retention', 'DeleteObjectsCommand', { Bucket: 'files', Delete: { Objects: [{ Key: 'answers/v1/a' }, { Key: 'items/v1/b' }] } })).toMatch(
      /may not delete items\/v1\/b \(/,
    );
    expect(deny('pages', 'CopyObjectCommand', { Bucket: 'files', Key: 'items/v1/1.json' })).toMatch(/^AccessDenied: pages may not call CopyObjectCommand/);
  });

  it('lets only the functions that name the work bucket use it, and none delete there', () => {
    expect(deny('snapshot', 'PutObjectCommand', { Bucket: 'market-work-x', Key: 'recent/state' })).toBeNull();
    expect(deny('pages', 'GetObjectCommand', { Bucket: 'market-work-x', Key: 'recent/state' })).toMatch(/pages may not read recent\/state/);
    expect(deny('snapshot', 'DeleteObjectCommand', { Bucket: 'market-work-x', Key: 'recent/state' })).toMatch(/snapshot may not delete/);
  });

  it('holds keys to the stage prefix', () => {
    expect(
      bucketDenial('pages', 'GetObjectCommand', { Bucket: 'files', Key: 'preview-a/items/v1/1.json' }, { filesPrefix: 'preview-a/', work: 'w' }),
    ).toBeNull();
    expect(bucketDenial('pages', 'GetObjectCommand', { Bucket: 'files', Key: 'items/v1/1.json' }, { filesPrefix: 'preview-a/', work: 'w' })).toMatch(
      /may not read/,
    );
  });
});
