import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { MarketDataStack } from '../../lib/stack';
import { STAGES, type StageConfig, stageConfig } from '../../lib/stages';
import { FUNCTIONS } from '../../shared/topology';
import {
  type CfnResource,
  EXAMPLE_DOMAINS,
  environmentOf,
  flatten,
  functionId,
  mentions,
  ofType,
  PREVIEW_IDENTITY,
  productionWithDomains,
  synth,
} from './synth';

const DOMAINS = EXAMPLE_DOMAINS;
const withDomains = () => synth(productionWithDomains());

interface Origin {
  Id: string;
  DomainName: unknown;
  CustomOriginConfig?: unknown;
  S3OriginConfig?: unknown;
  OriginCustomHeaders?: Array<{ HeaderName: string; HeaderValue: unknown }>;
}
interface Behavior {
  PathPattern?: string;
  ViewerProtocolPolicy: string;
  TargetOriginId: string;
}
interface DistributionConfig {
  Origins: Origin[];
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  WebACLId?: unknown;
}

const siteConfig = (s: ReturnType<typeof synth>): DistributionConfig =>
  (ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource])[1].Properties
    .DistributionConfig as DistributionConfig;
const apiOfProtocol = (s: ReturnType<typeof synth>, protocol: string) =>
  ofType(s, 'AWS::ApiGatewayV2::Api').find(([, a]) => a.Properties.ProtocolType === protocol) as [string, CfnResource];

describe('only CloudFront reaches the APIs (issue 11, point 2)', () => {
  for (const stage of ['production', 'dev', 'preview-abc']) {
    it(`sends the origin secret's current value to both API origins (${stage})`, () => {
      const s = synth(stage);
      const [[secretId]] = ofType(s, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('SecretsOrigin'));
      // The APIs are the custom origins; the third is the site's bucket (issue 24), which gets no secret.
      const all = siteConfig(s).Origins;
      const origins = all.filter((o) => o.CustomOriginConfig);
      expect(origins).toHaveLength(2);
      expect(all.filter((o) => !o.CustomOriginConfig).map((o) => [Boolean(o.S3OriginConfig), o.OriginCustomHeaders ?? []])).toEqual([[true, []]]);
      for (const origin of origins) {
        expect(origin.OriginCustomHeaders).toHaveLength(1);
        const [header] = origin.OriginCustomHeaders ?? [];
        expect(header.HeaderName).toBe('x-origin-verify');
        // A CloudFormation dynamic reference, resolved at deploy time: the value is in no template.
        expect(flatten(header.HeaderValue)).toBe('{{resolve:secretsmanager:resolved:SecretString:current::}}');
        expect(mentions(header.HeaderValue, secretId)).toBe(true);
      }
    });
  }

  it('generates the origin secret as {current} of 48 characters without punctuation', () => {
    const [[, secret]] = ofType(synth('production'), 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('SecretsOrigin'));
    expect(secret.Properties.GenerateSecretString).toEqual({
      SecretStringTemplate: '{}',
      GenerateStringKey: 'current',
      PasswordLength: 48,
      ExcludePunctuation: true,
    });
  });

  it('keeps the execute-api endpoints where the stage has no custom domain', () => {
    const s = synth('production');
    for (const protocol of ['HTTP', 'WEBSOCKET']) expect(apiOfProtocol(s, protocol)[1].Properties.DisableExecuteApiEndpoint, protocol).not.toBe(true);
    expect(ofType(s, 'AWS::ApiGatewayV2::DomainName')).toHaveLength(0);
  });

  it('switches both execute-api endpoints off with custom domains and reaches each API through its own origin domain', () => {
    const s = withDomains();
    const [httpId, http] = apiOfProtocol(s, 'HTTP');
    const [wsId, ws] = apiOfProtocol(s, 'WEBSOCKET');
    expect(http.Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(ws.Properties.DisableExecuteApiEndpoint).toBe(true);
    const domains = ofType(s, 'AWS::ApiGatewayV2::DomainName');
    expect(domains.map(([, d]) => d.Properties.DomainName).sort()).toEqual([DOMAINS.apiOrigin, DOMAINS.liveOrigin]);
    for (const [, d] of domains) {
      expect(d.Properties.DomainNameConfigurations).toEqual([{ CertificateArn: DOMAINS.certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }]);
    }
    const mappings = ofType(s, 'AWS::ApiGatewayV2::ApiMapping');
    expect(mappings).toHaveLength(2);
    const mappingOf = (apiId: string) => mappings.find(([, m]) => mentions(m.Properties.ApiId, apiId))?.[1].Properties;
    expect(mappingOf(httpId)?.ApiMappingKey).toBeUndefined();
    expect(mappingOf(wsId)?.ApiMappingKey).toBeUndefined();
    // The APIs' origins (the site's bucket, issue 24, is the distribution's one S3 origin).
    const origins = siteConfig(s).Origins.filter((o) => o.CustomOriginConfig);
    expect(origins.map((o) => o.DomainName).sort()).toEqual([DOMAINS.apiOrigin, DOMAINS.liveOrigin]);
    // The origin header guards the origin domains too: anyone can resolve and call them.
    for (const o of origins) expect(o.OriginCustomHeaders?.[0].HeaderName).toBe('x-origin-verify');
  });

  it('rewrites upgrades to the root of the live origin domain and posts to @connections there', () => {
    const s = withDomains();
    const [[, fn]] = ofType(s, 'AWS::CloudFront::Function');
    expect(fn.Properties.FunctionCode).toContain("request.uri = '/';");
    for (const name of ['fanout', 'ws-message', 'live-sweep'] as const)
      expect(environmentOf(s, name).CONNECTIONS_ENDPOINT).toBe(`https://${DOMAINS.liveOrigin}`);
    const outputs = s.template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiOriginTarget', 'LiveOriginTarget']));
  });
});

describe('floods are stopped before Lambda (issue 11, point 3)', () => {
  it('puts a web ACL with a per-address rate limit and AWS common rules on the production distribution', () => {
    const s = synth('production');
    const acls = ofType(s, 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const [aclId, acl] = acls[0];
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    // WAF's own pattern for descriptions (no parentheses): CloudFormation refuses anything else.
    expect(acl.Properties.Description).toMatch(/^[a-zA-Z0-9=:#@/\-,.][a-zA-Z0-9+=:#@/\-,.\s]+[a-zA-Z0-9+=:#@/\-,.]{1,256}$/);
    expect(acl.Properties.DefaultAction).toEqual({ Allow: {} });
    expect(acl.Properties.CustomResponseBodies).toEqual({
      rate_limited: { ContentType: 'APPLICATION_JSON', Content: '{"error":"rate_limited","message":"too many requests from this address"}' },
    });
    const rules = acl.Properties.Rules as Array<Record<string, unknown>>;
    expect(rules).toHaveLength(2);
    expect(rules[0]).toEqual({
      Name: 'RatePerAddress',
      Priority: 0,
      Action: {
        Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rate_limited', ResponseHeaders: [{ Name: 'retry-after', Value: '60' }] } },
      },
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 1200, EvaluationWindowSec: 60 } },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, MetricName: 'rate-per-address', SampledRequestsEnabled: true },
    });
    expect(rules[1]).toEqual({
      Name: 'AWSManagedRulesCommonRuleSet',
      Priority: 1,
      OverrideAction: { None: {} },
      Statement: {
        ManagedRuleGroupStatement: {
          VendorName: 'AWS',
          Name: 'AWSManagedRulesCommonRuleSet',
          RuleActionOverrides: [
            { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
            { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
          ],
        },
      },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, MetricName: 'common-rules', SampledRequestsEnabled: true },
    });
    expect(siteConfig(s).WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    // The file host serves cached S3 objects only; it carries no web ACL.
    const files = ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Files')) as [string, CfnResource];
    expect((files[1].Properties.DistributionConfig as DistributionConfig).WebACLId).toBeUndefined();
  });

  it('turns the web ACL on by default in production only, per stage', () => {
    expect(STAGES.production.waf).toBe(true);
    expect(STAGES.dev.waf).toBe(false);
    expect(stageConfig('preview-x', PREVIEW_IDENTITY).waf).toBe(false);
    for (const stage of ['dev', 'preview-abc']) {
      expect(ofType(synth(stage), 'AWS::WAFv2::WebACL'), stage).toHaveLength(0);
      expect(siteConfig(synth(stage)).WebACLId, stage).toBeUndefined();
    }
  });

  it('deploys a stage with a web ACL to us-east-1 and refuses to synthesize it elsewhere', () => {
    expect(STAGES.production.region).toBe('us-east-1');
    expect(synth('production').stack.region).toBe('us-east-1');
    const build = (config: StageConfig, region: string) => () =>
      new MarketDataStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'X', { config, env: { account: '111111111111', region } });
    expect(build(STAGES.production, 'eu-west-1')).toThrow(/WAF web ACL on CloudFront, which AWS creates only in us-east-1, but deploys to eu-west-1/);
    expect(build({ ...STAGES.dev, waf: true }, 'eu-central-1')).toThrow(/only in us-east-1/);
    expect(build(STAGES.dev, 'eu-central-1')).not.toThrow();
  });

  it('throttles every WebSocket route to 250 a second (burst 500), and the HTTP API stage to 500 (burst 1000)', () => {
    for (const stage of ['production', 'dev']) {
      const s = synth(stage);
      const stages = ofType(s, 'AWS::ApiGatewayV2::Stage');
      const [wsId] = apiOfProtocol(s, 'WEBSOCKET');
      const [httpId] = apiOfProtocol(s, 'HTTP');
      const ws = stages.find(([, st]) => mentions(st.Properties.ApiId, wsId))?.[1].Properties;
      const http = stages.find(([, st]) => mentions(st.Properties.ApiId, httpId))?.[1].Properties;
      expect(ws?.DefaultRouteSettings).toEqual({ ThrottlingBurstLimit: 500, ThrottlingRateLimit: 250 });
      expect(http?.DefaultRouteSettings).toEqual({ ThrottlingBurstLimit: 1000, ThrottlingRateLimit: 500 });
    }
  });

  it("reserves concurrency for merge (10) and fanout (10) only, far below the account's unreserved minimum of 100", () => {
    const s = synth('production');
    const reserved = Object.fromEntries(
      FUNCTIONS.map((f) => [f.name, s.resources[functionId(s, f.name)].Properties.ReservedConcurrentExecutions]).filter(([, n]) => n !== undefined),
    );
    expect(reserved).toEqual({ merge: 10, fanout: 10 });
    // With the default account limit of 1000, what stays unreserved must not fall to Lambda's minimum of 100.
    const total = Object.values(reserved).reduce((a: number, b) => a + Number(b), 0);
    expect(1000 - total).toBeGreaterThan(100);
  });
});

describe('identities stay apart (issue 11, point 8)', () => {
  it('refuses to synthesize a preview without its own identity instance', () => {
    expect(() => stageConfig('preview-abc')).toThrow(/preview-abc needs its own identity instance \(the spec: each preview has its own\): -c identity=/);
    expect(() => stageConfig('preview-abc', STAGES.dev.identity)).toThrow(/names the dev instance/);
    expect(() => stageConfig('preview-abc', STAGES.production.identity)).toThrow(/names the production instance/);
    expect(() => stageConfig('preview-abc', { ...PREVIEW_IDENTITY, jwksUrl: '' })).toThrow(/"jwksUrl" is missing/);
    expect(() => stageConfig('preview-abc', { ...PREVIEW_IDENTITY, issuer: 'http://plain.example' })).toThrow(/"issuer" must be an https URL/);
  });

  it('builds a preview against its own identity instance', () => {
    const env = environmentOf(synth('preview-abc'), 'api');
    expect(env.IDP_ISSUER).toBe(PREVIEW_IDENTITY.issuer);
    expect(env.IDP_JWKS_URL).toBe(PREVIEW_IDENTITY.jwksUrl);
    expect(env.CLERK_PUBLISHABLE_KEY).toBe(PREVIEW_IDENTITY.publishableKey);
  });

  it("generates a per-deployment uploader-hash key, kept with production's data", () => {
    for (const [stage, policy] of [
      ['production', 'Retain'],
      ['dev', 'Delete'],
    ]) {
      const [[, secret]] = ofType(synth(stage), 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('SecretsUploader'));
      expect(secret.Properties.GenerateSecretString).toEqual({ PasswordLength: 48, ExcludePunctuation: true });
      expect(secret.DeletionPolicy).toBe(policy);
    }
  });

  it('serves the APIs over HTTPS only (no redirect carrying a bearer token in the clear); pages still redirect', () => {
    for (const stage of ['production', 'dev', 'preview-abc']) {
      const config = siteConfig(synth(stage));
      expect(config.CacheBehaviors.map((b) => [b.PathPattern, b.ViewerProtocolPolicy])).toEqual([
        ['/api/v1/live', 'https-only'],
        ['/api/*', 'https-only'],
        ['/assets/*', 'redirect-to-https'],
        ['/sw.js', 'redirect-to-https'],
      ]);
      expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    }
  });
});
