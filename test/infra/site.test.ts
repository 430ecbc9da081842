/**
 * The website's build on AWS (issue 24 points 1, 11): deployed by the stack to the site's bucket, served
 * behind the public distribution at the same `/assets/` paths the local runtime serves, cached as immutable,
 * and named to every page through SITE_ENTRY.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSiteBuild } from '../../lib/site-build';
import { type CfnResource, environmentOf, flatten, mentions, ofType, synth } from './synth';

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  AllowedMethods?: string[];
  CachePolicyId?: unknown;
  Compress?: boolean;
}

const distributionOf = (s: ReturnType<typeof synth>) =>
  (ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource])[1].Properties.DistributionConfig as {
    Origins: Array<{ Id: string; DomainName: unknown; S3OriginConfig?: unknown; OriginAccessControlId?: unknown }>;
    CacheBehaviors: Behavior[];
  };

describe('the website on AWS (issue 24)', () => {
  const build = readSiteBuild();

  it('has a build whose entry script exists under assets/', () => {
    expect(build).not.toBeNull();
    expect(build?.entry).toMatch(/^\/assets\/main-[A-Za-z0-9_-]+\.js$/);
    expect(existsSync(join(build?.dir ?? '', build?.entry ?? ''))).toBe(true);
  });

  for (const stage of ['production', 'dev', 'preview-abc']) {
    it(`deploys the build to a private bucket, served at /assets/* through the public distribution with immutable caching (${stage})`, () => {
      const s = synth(stage);
      const [[bucketId, bucket]] = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('SiteAssetsBucket'));
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      const [[, deployment]] = ofType(s, 'Custom::CDKBucketDeployment');
      expect(mentions(deployment.Properties.DestinationBucketName, bucketId)).toBe(true);
      expect(deployment.Properties).toMatchObject({ DestinationBucketKeyPrefix: 'assets/', Prune: false });
      expect(deployment.Properties.SystemMetadata).toEqual({ 'cache-control': 'public, max-age=31536000, immutable' });

      const config = distributionOf(s);
      const assets = config.CacheBehaviors.find((b) => b.PathPattern === '/assets/*');
      expect(assets).toBeDefined();
      const origin = config.Origins.find((o) => o.Id === assets?.TargetOriginId);
      expect(origin?.S3OriginConfig).toBeDefined();
      expect(mentions(origin?.DomainName, bucketId)).toBe(true);
      expect(origin?.OriginAccessControlId).toBeDefined();
      expect(assets?.AllowedMethods).toEqual(['GET', 'HEAD']);
      expect(assets?.Compress).toBe(true);
      // CloudFront's managed CachingOptimized policy: the files' own immutable Cache-Control is kept.
      expect(flatten(assets?.CachePolicyId)).toBe('658327ea-f89d-4fab-a63d-7e88639e58f6');
    });

    it(`names the build's entry to every function as SITE_ENTRY, so the pages load the deployed script (${stage})`, () => {
      const s = synth(stage);
      expect(flatten(environmentOf(s, 'pages').SITE_ENTRY)).toBe(build?.entry);
    });
  }
});
