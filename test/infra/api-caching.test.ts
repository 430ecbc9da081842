import { describe, expect, it } from 'vitest';
import { edgeHandler, viewerRequest } from '../support/cloudfront-function';
import { type CfnResource, mentions, ofType, type Synthesized, synth } from './synth';

/** AWS managed policies (their ids are fixed by AWS). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

const SITE_FILES = ['/assets/*', '/sw.js'];

interface Behavior {
  PathPattern?: string;
  CachePolicyId: unknown;
  OriginRequestPolicyId: unknown;
  TargetOriginId: string;
  AllowedMethods: string[];
  CachedMethods?: string[];
  FunctionAssociations?: Array<{ EventType: string; FunctionARN: unknown }>;
}

interface CachePolicyConfig {
  MinTTL: number;
  DefaultTTL: number;
  MaxTTL: number;
  ParametersInCacheKeyAndForwardedToOrigin: {
    EnableAcceptEncodingGzip: boolean;
    EnableAcceptEncodingBrotli: boolean;
    HeadersConfig: { HeaderBehavior: string; Headers?: string[] };
    CookiesConfig: { CookieBehavior: string; Cookies?: string[] };
    QueryStringsConfig: { QueryStringBehavior: string };
  };
}

const STAGES = ['dev', 'production'];

/** The public distribution's behaviours in front of the functions (the site's built files aside). */
function apiBehaviors(s: Synthesized): Behavior[] {
  const site = ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource];
  const config = site[1].Properties.DistributionConfig as { DefaultCacheBehavior: Behavior; CacheBehaviors: Behavior[] };
  // The site's built files (/assets/*, /sw.js) come from its bucket, not the functions: test/infra/site*.test.ts.
  return [config.DefaultCacheBehavior, ...config.CacheBehaviors].filter((b) => !SITE_FILES.includes(b.PathPattern ?? '*'));
}

/** The stack's own cache policy a behaviour names, with its logical id. */
function cachePolicyOf(s: Synthesized, b: Behavior): [string, CachePolicyConfig] {
  const found = ofType(s, 'AWS::CloudFront::CachePolicy').find(([id]) => mentions(b.CachePolicyId, id));
  if (!found) throw new Error(`${b.PathPattern ?? '*'} names no cache policy of the stack`);
  return [found[0], found[1].Properties.CachePolicyConfig as CachePolicyConfig];
}

/** The code of the viewer-request function a behaviour runs. */
function viewerRequestCode(s: Synthesized, b: Behavior): string {
  const assoc = (b.FunctionAssociations ?? []).filter((f) => f.EventType === 'viewer-request');
  expect(assoc, b.PathPattern ?? '*').toHaveLength(1);
  const fn = ofType(s, 'AWS::CloudFront::Function').find(([id]) => mentions(assoc[0].FunctionARN, id));
  if (!fn) throw new Error('no function for the association');
  return fn[1].Properties.FunctionCode as string;
}

/**
 * Issue 26 point 6: the public host caches the anonymous answers the spec marks public (pages, hourly answers,
 * item data, `/api/v1/items/unknown`, discovery, config) for as long as their `Cache-Control` says, keyed by
 * path, query and `Accept` (and CloudFront's gzip/br `Accept-Encoding`); a request with a credential is never
 * answered from the cache; the origin request is unchanged, so the functions still see the viewer's address.
 * (Issue 15 point 4 had the host cache nothing; its validators still work: CloudFront revalidates with the
 * functions' `ETag`.)
 */
describe('public host and HTTP caching', () => {
  it('has the live path cache nothing, and pages and the rest of the API share one cache policy', () => {
    for (const stage of STAGES) {
      const s = synth(stage);
      const behaviors = apiBehaviors(s);
      expect(behaviors.map((b) => b.PathPattern ?? '*').sort()).toEqual(['*', '/api/*', '/api/v1/live']);
      const live = behaviors.find((b) => b.PathPattern === '/api/v1/live');
      expect(live?.CachePolicyId).toBe(CACHING_DISABLED);
      const cached = behaviors.filter((b) => b !== live);
      const [first] = cachePolicyOf(s, cached[0]);
      for (const b of cached) {
        expect(cachePolicyOf(s, b)[0], b.PathPattern ?? '*').toBe(first);
        // Uploads and writes still pass; only GET and HEAD answers are ever taken from the cache.
        expect(b.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST', 'PUT', 'DELETE']));
        expect(b.CachedMethods ?? ['GET', 'HEAD']).toEqual(['GET', 'HEAD']);
      }
    }
  });

  it('keys answers by path, every query parameter and Accept, with gzip/br normalization, and keeps them as the origin says', () => {
    for (const stage of STAGES) {
      const s = synth(stage);
      for (const b of apiBehaviors(s).filter((x) => x.PathPattern !== '/api/v1/live')) {
        const [, policy] = cachePolicyOf(s, b);
        const key = policy.ParametersInCacheKeyAndForwardedToOrigin;
        expect(key.QueryStringsConfig.QueryStringBehavior).toBe('all');
        expect(key.HeadersConfig.HeaderBehavior).toBe('whitelist');
        expect(key.HeadersConfig.Headers?.map((h) => h.toLowerCase())).toEqual(expect.arrayContaining(['accept']));
        expect(key.EnableAcceptEncodingGzip).toBe(true);
        expect(key.EnableAcceptEncodingBrotli).toBe(true);
        // TTL from the origin: nothing is kept longer than, or without, its Cache-Control allowing it, and
        // `private` / `no-store` answers (live answers, errors, the caller's own data) are never stored.
        expect(policy.MinTTL).toBe(0);
        expect(policy.DefaultTTL).toBe(0);
        // The hourly answers live up to an hour and two minutes (snapshot: seconds to the next hour + 120).
        expect(policy.MaxTTL).toBeGreaterThanOrEqual(3720);
      }
    }
  });

  it('never answers a credentialed request from the cache: Authorization, the session cookie and a per-request mark are in the key', () => {
    for (const stage of STAGES) {
      const s = synth(stage);
      for (const b of apiBehaviors(s).filter((x) => x.PathPattern !== '/api/v1/live')) {
        const [, policy] = cachePolicyOf(s, b);
        const key = policy.ParametersInCacheKeyAndForwardedToOrigin;
        const headers = key.HeadersConfig.Headers?.map((h) => h.toLowerCase()) ?? [];
        expect(headers).toEqual(expect.arrayContaining(['authorization']));
        expect(key.CookiesConfig).toEqual({ CookieBehavior: 'whitelist', Cookies: ['__session'] });
        // The template's own function code, run on sample events: each credentialed request gets a key part
        // (a header of the cache key) that no other request has; anonymous ones share theirs.
        const handler = edgeHandler(viewerRequestCode(s, b));
        const marks = (url: string, h: Record<string, string>) => {
          const one = handler(viewerRequest('GET', url, h, 'request-1')).headers;
          const two = handler(viewerRequest('GET', url, h, 'request-2')).headers;
          return Object.keys(one).filter((name) => headers.includes(name) && one[name].value !== two[name]?.value);
        };
        for (const [url, h] of [
          ['/api/v1/ah', { authorization: 'Bearer ak_key' }],
          ['/api/v1/ah', { authorization: 'Bearer eyJ.e30.sig' }],
          ['/item/2589', { cookie: '__session=eyJ.e30.sig', accept: 'text/html' }],
          ['/api/v1/ah?token=svc_dev_x', {}],
        ] as const)
          expect(marks(url, h), `${b.PathPattern ?? '*'} ${url} ${JSON.stringify(h)}`).toHaveLength(1);
        expect(marks('/api/v1/ah', { accept: 'application/json', cookie: '__client_uat=0' })).toEqual([]);
        expect(marks('/item/2589', { accept: 'text/markdown' })).toEqual([]);
      }
    }
  });

  it('sends the functions what it sent before: every viewer header but Host (CloudFront-Viewer-Address for the per-address limits) and the origin-verify header', () => {
    for (const stage of STAGES) {
      const s = synth(stage);
      const site = ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource];
      const origins = (site[1].Properties.DistributionConfig as { Origins: Array<{ Id: string; OriginCustomHeaders?: Array<{ HeaderName: string }> }> })
        .Origins;
      for (const b of apiBehaviors(s)) {
        expect(b.OriginRequestPolicyId, b.PathPattern).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
        const origin = origins.find((o) => o.Id === b.TargetOriginId);
        expect(
          origin?.OriginCustomHeaders?.map((h) => h.HeaderName),
          b.PathPattern,
        ).toEqual(['x-origin-verify']);
      }
    }
  });
});
