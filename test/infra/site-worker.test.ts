/**
 * The site's service worker on AWS (issue 24 point 6): deployed with the build to the site's bucket and
 * served at `/sw.js` through the public distribution, as the local runtime serves it, never cached at the
 * edge (its name is fixed: a new build's must reach browsers) and with `no-cache` for browsers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSiteBuild } from '../../lib/site-build';
import { type CfnResource, flatten, mentions, ofType, synth } from './synth';

describe('the service worker on AWS', () => {
  it('is built at the root of the site build', () => {
    const build = readSiteBuild();
    expect(existsSync(join(build?.dir ?? '', 'sw.js'))).toBe(true);
  });

  it('is deployed to the site bucket and served at /sw.js, uncached at the edge (dev)', () => {
    const s = synth('dev');
    const [[bucketId]] = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('SiteAssetsBucket'));
    const worker = ofType(s, 'Custom::CDKBucketDeployment').find(([, d]) => JSON.stringify(d.Properties.Include ?? []) === '["sw.js"]');
    expect(worker).toBeDefined();
    const props = (worker as [string, CfnResource])[1].Properties;
    expect(mentions(props.DestinationBucketName, bucketId)).toBe(true);
    expect(props).toMatchObject({ Exclude: ['*'], Include: ['sw.js'], Prune: false });
    expect(props.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    const config = (ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource])[1].Properties
      .DistributionConfig as { CacheBehaviors: Array<{ PathPattern: string; TargetOriginId: string; CachePolicyId: unknown; AllowedMethods: string[] }> };
    const sw = config.CacheBehaviors.find((b) => b.PathPattern === '/sw.js');
    const assets = config.CacheBehaviors.find((b) => b.PathPattern === '/assets/*');
    expect(sw).toBeDefined();
    // The same bucket origin as the hashed files; CloudFront's managed CachingDisabled policy.
    expect(sw?.TargetOriginId).toBe(assets?.TargetOriginId);
    expect(flatten(sw?.CachePolicyId)).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(sw?.AllowedMethods).toEqual(['GET', 'HEAD']);
  });
});
