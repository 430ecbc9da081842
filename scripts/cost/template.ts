/**
 * What the cost model reads of the synthesized template (issue 26 point 9): the operator's fixed monthly
 * items are counted in the stack as `cdk synth` makes it, not written down beside it, so an alarm, a secret or
 * a WAF rule added to the stack is in the next bill. `templateFacts` is pure (a template's JSON in, counts
 * out); `synthesizedTemplate` builds a stage's stack without bundling, as the infra tests do.
 */

/** One resource of a CloudFormation template. */
interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface TemplateFacts {
  /** CloudWatch alarms, and the metrics they read (a metric-math alarm is billed per metric it reads). */
  alarms: number;
  alarmMetrics: number;
  /** Of those, metrics of alarms with a period under 60 s (high resolution, a dearer price). */
  highResolutionAlarmMetrics: number;
  dashboards: number;
  /** Secrets Manager secrets. */
  secrets: number;
  /** WAF web ACLs and the rules in them (a managed rule group is one rule). */
  webAcls: number;
  webAclRules: number;
  /** Manifest functions with X-Ray active tracing, by name (ServiceFunction describes each `<name> (<stage>)`). */
  tracedFunctions: string[];
  /** The access-log line format of each API stage that writes one (`$context.*` variables in a JSON line). */
  accessLogFormats: string[];
  /** Retention of the functions' log groups in days (the longest, if they differ); null: kept forever. */
  logRetentionDays: number | null;
  /**
   * CloudFront Functions each API or page request through the public distribution (the one with `/api/`
   * behaviours) runs: the fewest any of those behaviours and the default one associates (one today: the
   * credential guard, the live router).
   */
  edgeFunctionsPerRequest: number;
}

/** One cache behaviour of a distribution, as far as the count needs it. */
interface Behaviour {
  PathPattern?: string;
  FunctionAssociations?: unknown[];
}

/** Functions each request through the API's distribution runs (0 without one). */
function edgeFunctionsPerRequest(t: Template): number {
  for (const d of ofType(t, 'AWS::CloudFront::Distribution')) {
    const config = (d.DistributionConfig ?? {}) as { DefaultCacheBehavior?: Behaviour; CacheBehaviors?: Behaviour[] };
    const api = (config.CacheBehaviors ?? []).filter((b) => b.PathPattern?.startsWith('/api/'));
    if (api.length === 0) continue;
    // The scenario's requests: the API's behaviours and the default one (pages); the site's static files are not in it.
    return Math.min(...[config.DefaultCacheBehavior ?? {}, ...api].map((b) => (b.FunctionAssociations ?? []).length));
  }
  return 0;
}

type Template = { Resources?: Record<string, Resource> };

const ofType = (t: Template, type: string): Array<Record<string, unknown>> =>
  Object.values(t.Resources ?? {})
    .filter((r) => r.Type === type)
    .map((r) => r.Properties ?? {});

/** Metrics one alarm reads: its own metric, or each `MetricStat` of its metric math. */
function alarmMetricCount(props: Record<string, unknown>): number {
  if (typeof props.MetricName === 'string') return 1;
  const metrics = (props.Metrics ?? []) as Array<{ MetricStat?: unknown }>;
  return metrics.filter((m) => m.MetricStat !== undefined).length;
}

/** The alarm's period in seconds (its own, or its metric math's shortest). */
function alarmPeriod(props: Record<string, unknown>): number {
  if (typeof props.Period === 'number') return props.Period;
  const periods = ((props.Metrics ?? []) as Array<{ MetricStat?: { Period?: number }; Period?: number }>)
    .map((m) => m.MetricStat?.Period ?? m.Period)
    .filter((p): p is number => typeof p === 'number');
  return periods.length > 0 ? Math.min(...periods) : 60;
}

export function templateFacts(template: Template): TemplateFacts {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm');
  const acls = ofType(template, 'AWS::WAFv2::WebACL');
  const functions = ofType(template, 'AWS::Lambda::Function');
  const stages = ofType(template, 'AWS::ApiGatewayV2::Stage');
  // The functions' log groups: those a function names in its LoggingConfig.
  const groupIds = new Set(
    functions.map((f) => (f.LoggingConfig as { LogGroup?: { Ref?: string } } | undefined)?.LogGroup?.Ref).filter((id): id is string => typeof id === 'string'),
  );
  const retentions = Object.entries(template.Resources ?? {})
    .filter(([id, r]) => r.Type === 'AWS::Logs::LogGroup' && groupIds.has(id))
    .map(([, r]) => r.Properties?.RetentionInDays);
  return {
    alarms: alarms.length,
    alarmMetrics: alarms.reduce((n, a) => n + alarmMetricCount(a), 0),
    highResolutionAlarmMetrics: alarms.filter((a) => alarmPeriod(a) < 60).reduce((n, a) => n + alarmMetricCount(a), 0),
    dashboards: ofType(template, 'AWS::CloudWatch::Dashboard').length,
    secrets: ofType(template, 'AWS::SecretsManager::Secret').length,
    webAcls: acls.length,
    webAclRules: acls.reduce((n, a) => n + ((a.Rules ?? []) as unknown[]).length, 0),
    tracedFunctions: functions
      .filter((f) => (f.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active')
      .map((f) => (typeof f.Description === 'string' ? f.Description.replace(/ \(.*\)$/, '') : '?')),
    accessLogFormats: stages.map((s) => (s.AccessLogSettings as { Format?: unknown } | undefined)?.Format).filter((f): f is string => typeof f === 'string'),
    edgeFunctionsPerRequest: edgeFunctionsPerRequest(template),
    logRetentionDays: retentions.some((r) => typeof r !== 'number') || retentions.length === 0 ? null : Math.max(...(retentions as number[])),
  };
}

/**
 * The template of `stage` as `cdk synth` makes it (cdk.json's feature flags), without bundling the functions
 * (test/infra/synth.ts does the same). Production needs an alarm address to synthesize: a placeholder here,
 * since only counts are read. Loaded lazily: the CDK is only needed here.
 */
export async function synthesizedTemplate(stageName = 'production'): Promise<Template> {
  const [{ App }, { appContext }, { MarketDataStack }, { stackName, stageConfig }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../../lib/cdk-context'),
    import('../../lib/stack'),
    import('../../lib/stages'),
  ]);
  const app = new App({ context: appContext({ 'aws:cdk:bundling-stacks': [] }), builtinCloudFormationValidation: false });
  const base = stageConfig(stageName);
  const config = base.env === 'production' ? { ...base, alarmEmail: base.alarmEmail ?? 'alarms@example.com' } : base;
  const stack = new MarketDataStack(app, stackName(config.stage), { config, env: { account: '111111111111', region: config.region ?? 'us-east-1' } });
  return app.synth().getStackByName(stack.stackName).template as Template;
}
