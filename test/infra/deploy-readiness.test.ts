/**
 * The first deploy works (issue 26 point 0): what `cdk synth` cannot find but AWS refuses or gets wrong on a
 * first deploy of production, dev and a preview, checked on the synthesized templates.
 */
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { httpRouteSourceArn, invokePermissions, LOCAL_HTTP_API_ID, mayInvoke } from '../../lib/local/iam/invoke-permissions';
import type { TemplateJson } from '../../lib/local/iam/resolve';
import { MarketDataStack } from '../../lib/stack';
import { accountConcurrencyNeeded, devParameters, STAGES, type StageConfig, stageConfig } from '../../lib/stages';
import { SECRET_PLACEHOLDER } from '../../shared/platform/secret-placeholder';
import { FUNCTIONS, type FunctionName, PUSH_QUEUE, SCHEDULES } from '../../shared/topology';
import { ALARM_EMAIL, type CfnResource, environmentOf, functionId, mentions, ofType, PREVIEW_IDENTITY, type Synthesized, synth } from './synth';

const STAGE_NAMES = ['production', 'dev', 'preview-abc'] as const;

/** The manifest name of the function an integration invokes. */
function integrationFunction(s: Synthesized, integrationId: string): FunctionName {
  const fnId = JSON.stringify(s.resources[integrationId].Properties.IntegrationUri).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)?.[1] ?? '';
  return String(s.resources[fnId]?.Properties.Description ?? '').split(' ')[0] as FunctionName;
}

const regionOf = (s: Synthesized): string => s.stack.region;

describe('deploy readiness: API Gateway may invoke what it routes to', () => {
  it('covers every HTTP API route, $default included, with an invoke permission of its function', () => {
    for (const stage of STAGE_NAMES) {
      const s = synth(stage);
      const scope = { region: regionOf(s), account: '111111111111' };
      const permissions = invokePermissions(s.template.toJSON() as TemplateJson, scope);
      const [httpApi] = ofType(s, 'AWS::ApiGatewayV2::Api').filter(([, a]) => a.Properties.ProtocolType === 'HTTP');
      const http = ofType(s, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, httpApi[0]));
      expect(http.map(([, r]) => r.Properties.RouteKey)).toContain('$default');
      for (const [, route] of http) {
        const target = (route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] })['Fn::Join'][1][1].Ref;
        const fn = integrationFunction(s, target);
        const arn = httpRouteSourceArn(String(route.Properties.RouteKey), scope, LOCAL_HTTP_API_ID);
        expect({ stage, route: route.Properties.RouteKey, fn, covered: mayInvoke(permissions, fn, arn) }).toEqual({
          stage,
          route: route.Properties.RouteKey,
          fn,
          covered: true,
        });
      }
    }
  });
});

describe('deploy readiness: alarms reach someone', () => {
  /** The alarms topic's policy statements. */
  const topicStatements = (s: Synthesized): Array<Record<string, unknown>> => {
    const [topicId] = ofType(s, 'AWS::SNS::Topic').map(([id]) => id);
    return ofType(s, 'AWS::SNS::TopicPolicy')
      .filter(([, p]) => mentions(p.Properties.Topics, topicId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
  };

  it("lets CloudWatch of the stage's own account publish to the alarms topic, which every alarm notifies", () => {
    for (const stage of STAGE_NAMES) {
      const s = synth(stage);
      const allow = topicStatements(s).filter((st) => st.Effect === 'Allow');
      expect(allow, stage).toEqual([
        expect.objectContaining({
          Action: 'sns:Publish',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': '111111111111' } },
        }),
      ]);
      const [topicId] = ofType(s, 'AWS::SNS::Topic').map(([id]) => id);
      for (const [id, alarm] of ofType(s, 'AWS::CloudWatch::Alarm')) expect(mentions(alarm.Properties.AlarmActions, topicId), id).toBe(true);
    }
  });

  it('subscribes the stage’s alarm address, and refuses to synthesize production without one', () => {
    const subscriptions = (s: Synthesized) => ofType(s, 'AWS::SNS::Subscription').map(([, r]) => [r.Properties.Protocol, r.Properties.Endpoint]);
    expect(subscriptions(synth('production'))).toEqual([['email', ALARM_EMAIL]]);
    expect(subscriptions(synth({ key: 'dev+alarms', config: { ...STAGES.dev, alarmEmail: 'dev-alarms@example.com' } }))).toEqual([
      ['email', 'dev-alarms@example.com'],
    ]);
    expect(subscriptions(synth('dev'))).toEqual([]);
    const build = (config: StageConfig) => () =>
      new MarketDataStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'X', { config, env: { account: '111111111111', region: 'us-east-1' } });
    expect(build(STAGES.production)).toThrow(/stage production has no alarmEmail, so no alarm would reach anyone: deploy with -c alarmEmail=<address>/);
    expect(build({ ...STAGES.production, alarmEmail: 'not an address' })).toThrow(/alarmEmail "not an address" is not an email address/);
  });
});

describe('deploy readiness: concurrency fits the account', () => {
  const reserved = (s: Synthesized) =>
    Object.fromEntries(
      FUNCTIONS.map((f) => [f.name, s.resources[functionId(s, f.name)].Properties.ReservedConcurrentExecutions]).filter(([, n]) => n !== undefined),
    );

  it('reserves merge and fan-out concurrency in production and dev only: previews share dev’s account and reserve none', () => {
    expect(reserved(synth('production'))).toEqual({ merge: 10, fanout: 10 });
    expect(reserved(synth('dev'))).toEqual({ merge: 10, fanout: 10 });
    expect(reserved(synth('preview-abc'))).toEqual({});
    // Lambda keeps 100 unreserved: dev with any number of previews needs 120, production alone 120.
    const previews = ['a', 'b', 'c'].map((n) => stageConfig(`preview-${n}`, PREVIEW_IDENTITY));
    expect(accountConcurrencyNeeded([STAGES.dev, ...previews])).toBe(120);
    expect(accountConcurrencyNeeded([STAGES.production])).toBe(120);
    expect(accountConcurrencyNeeded([STAGES.production, STAGES.dev])).toBe(140);
  });

  it('caps the push consumer’s concurrency', () => {
    for (const stage of STAGE_NAMES) {
      const s = synth(stage);
      const push = functionId(s, 'push');
      const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => mentions(m.Properties.FunctionName, push));
      expect(
        mappings.map(([, m]) => m.Properties.ScalingConfig),
        stage,
      ).toEqual([{ MaximumConcurrency: PUSH_QUEUE.maxConcurrency }]);
      expect(PUSH_QUEUE.maxConcurrency).toBeLessThanOrEqual(10);
    }
  });
});

describe('deploy readiness: scheduled runs', () => {
  it('never retries a failed scheduled run asynchronously, and drops it after one period: the next run does its work', () => {
    for (const stage of STAGE_NAMES) {
      const s = synth(stage);
      for (const spec of SCHEDULES) {
        const fn = functionId(s, spec.function);
        const configs = ofType(s, 'AWS::Lambda::EventInvokeConfig').filter(([, c]) => mentions(c.Properties.FunctionName, fn));
        expect(
          configs.map(([, c]) => [c.Properties.MaximumRetryAttempts, c.Properties.MaximumEventAgeInSeconds]),
          `${stage} ${spec.name}`,
        ).toEqual([[0, spec.everyMinutes * 60]]);
      }
    }
  });
});

/**
 * A function's environment at the longest values AWS gives: queue and bucket names at their maxima, secret
 * ARNs with their suffix, each intrinsic at 64 characters otherwise.
 */
function worstCaseEnvironmentBytes(s: Synthesized, name: FunctionName): number {
  const longest = (v: unknown): string => {
    if (typeof v === 'string') return v;
    const o = (v ?? {}) as Record<string, unknown>;
    if (Array.isArray(o['Fn::Join'])) return (o['Fn::Join'][1] as unknown[]).map(longest).join(String(o['Fn::Join'][0]));
    const id = typeof o.Ref === 'string' ? o.Ref : Array.isArray(o['Fn::GetAtt']) ? String(o['Fn::GetAtt'][0]) : '';
    const type = (s.resources[id] as CfnResource | undefined)?.Type;
    if (type === 'AWS::SQS::Queue')
      return typeof o.Ref === 'string' ? `https://sqs.ap-southeast-2.amazonaws.com/111111111111/${'q'.repeat(80)}` : 'q'.repeat(80);
    if (type === 'AWS::S3::Bucket') return 'b'.repeat(63);
    if (type === 'AWS::SecretsManager::Secret') return `arn:aws:secretsmanager:ap-southeast-2:111111111111:secret:${'s'.repeat(64)}-AbCdEf`;
    if (o.Ref === 'AWS::Region') return 'ap-southeast-2';
    return 'x'.repeat(64);
  };
  const env = Object.fromEntries(Object.entries(environmentOf(s, name)).map(([k, v]) => [k, longest(v)]));
  return Buffer.byteLength(JSON.stringify(env));
}

describe('deploy readiness: environment size', () => {
  it("keeps every function's environment within three quarters of Lambda's 4 KB, at the longest names AWS gives", () => {
    for (const stage of STAGE_NAMES) {
      const s = synth(stage);
      for (const spec of FUNCTIONS)
        expect({ stage, fn: spec.name, under: worstCaseEnvironmentBytes(s, spec.name) <= 3 * 1024 }).toEqual({ stage, fn: spec.name, under: true });
    }
  });
});

describe('deploy readiness: stages come and go', () => {
  it('lets previews read dev’s file host from SSM parameters at deploy time, importing no export of dev', () => {
    const preview = synth('preview-abc');
    expect(JSON.stringify(preview.template.toJSON())).not.toContain('Fn::ImportValue');
    const parameters = preview.template.toJSON().Parameters as Record<string, { Type: string; Default?: string }>;
    const read = Object.values(parameters)
      .filter((p) => p.Type === 'AWS::SSM::Parameter::Value<String>' && !String(p.Default).startsWith('/cdk-bootstrap/'))
      .map((p) => p.Default)
      .sort();
    expect(read).toEqual(Object.values(devParameters).sort());
  });

  it('empties the access-log bucket on destroy only after everything that logs into it is gone', () => {
    for (const stage of ['dev', 'preview-abc']) {
      const s = synth(stage);
      const [logsId] = ofType(s, 'AWS::S3::Bucket')
        .map(([id]) => id)
        .filter((id) => id.startsWith('AccessLogs'));
      const [, emptying] = ofType(s, 'Custom::S3AutoDeleteObjects').find(([, r]) => mentions(r.Properties.BucketName, logsId)) ?? [];
      expect(emptying, stage).toBeDefined();
      const dependsOn = new Set(((emptying as CfnResource & { DependsOn?: string[] }).DependsOn ?? []) as string[]);
      const writers = [
        ...ofType(s, 'AWS::CloudFront::Distribution').filter(([, d]) => mentions(d.Properties.DistributionConfig ?? null, logsId)),
        ...ofType(s, 'AWS::S3::Bucket').filter(([, b]) => mentions(b.Properties.LoggingConfiguration ?? null, logsId)),
      ].map(([id]) => id);
      expect(writers.length, stage).toBeGreaterThanOrEqual(2);
      expect(
        writers.filter((w) => !dependsOn.has(w)),
        stage,
      ).toEqual([]);
    }
  });
});

describe('deploy readiness: operator secrets', () => {
  it('starts the identity key and the VAPID pair as the known placeholder, never a generated value', () => {
    for (const stage of STAGE_NAMES) {
      const s = synth(stage);
      const secret = (prefix: string) => {
        const found = ofType(s, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith(`Secrets${prefix}`) && !id.startsWith(`Secrets${prefix}Public`));
        expect(found, `${stage} ${prefix}`).toHaveLength(1);
        return found[0][1].Properties;
      };
      expect(secret('Identity').GenerateSecretString, stage).toBeUndefined();
      expect(secret('Identity').SecretString, stage).toBe(SECRET_PLACEHOLDER);
      expect(secret('Vapid').GenerateSecretString, stage).toBeUndefined();
      expect(JSON.parse(String(secret('Vapid').SecretString)), stage).toEqual({ publicKey: '', privateKey: SECRET_PLACEHOLDER });
    }
  });
});
