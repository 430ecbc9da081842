import { describe, expect, it } from 'vitest';
import { type CfnResource, ofType, synth } from './synth';

/** AWS managed policies (their ids are fixed by AWS). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

const SITE_FILES = ['/assets/*', '/sw.js'];

interface Behavior {
  PathPattern?: string;
  CachePolicyId: unknown;
  OriginRequestPolicyId: unknown;
}

/**
 * Issue 15 point 4: the API's validators and RateLimit fields are the functions' own. The public host caches
 * nothing and forwards every viewer header, so `If-None-Match` reaches the functions, their 304 or 200 goes
 * back as it is, and no edge copy serves one caller's `ETag` or `RateLimit-*` to another.
 */
describe('public host and HTTP caching', () => {
  it('caches no API or page answer and forwards If-None-Match (all viewer headers) to the functions', () => {
    for (const stage of ['dev', 'production']) {
      const site = ofType(synth(stage), 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource];
      const config = site[1].Properties.DistributionConfig as { DefaultCacheBehavior: Behavior; CacheBehaviors: Behavior[] };
      // The site's built files (/assets/*, /sw.js) come from its bucket, not the functions: test/infra/site*.test.ts.
      const behaviors = [config.DefaultCacheBehavior, ...config.CacheBehaviors].filter((b) => !SITE_FILES.includes(b.PathPattern ?? '*'));
      expect(behaviors.map((b) => b.PathPattern ?? '*').sort()).toEqual(['*', '/api/*', '/api/v1/live']);
      for (const b of behaviors) {
        expect(b.CachePolicyId, b.PathPattern).toBe(CACHING_DISABLED);
        expect(b.OriginRequestPolicyId, b.PathPattern).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
      }
    }
  });
});
