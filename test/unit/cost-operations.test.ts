/**
 * The operator's lines of the cost model (issue 26 point 9): what CloudFront's cache leaves to the origin,
 * X-Ray's sampling, the access and platform log lines, the metrics the functions emit, and what is counted in
 * a template. Hand-checked numbers; the model's wiring of them is in cost-model.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CostTopology, Prices } from '../../scripts/cost/model';
import {
  accessLogLineBytes,
  cdnMissRate,
  LOG_EVENT_OVERHEAD_BYTES,
  metricSeries,
  type OperationsInput,
  operationsLines,
  PLATFORM_XRAY_LINE,
  platformLogBytes,
  xrayTraces,
} from '../../scripts/cost/operations';
import { SCENARIO } from '../../scripts/cost/scenario';
import { type TemplateFacts, templateFacts } from '../../scripts/cost/template';
import { METRIC } from '../../shared/telemetry/metric-names';

const topology: CostTopology = {
  memoryMb: {},
  schedules: [],
  fifoQueues: 0,
  standardQueues: 0,
  markets: 6,
  httpFunctions: ['api', 'upload', 'pages'],
  marketWriters: ['merge'],
  secretsByFunction: { api: ['origin', 'identity'], push: ['vapid'], merge: [] },
  originSecretRefreshMinutes: 5,
};

const facts: TemplateFacts = {
  alarms: 3,
  alarmMetrics: 5,
  highResolutionAlarmMetrics: 1,
  dashboards: 1,
  secrets: 2,
  webAcls: 1,
  webAclRules: 2,
  tracedFunctions: [],
  accessLogFormats: [],
  logRetentionDays: 90,
  edgeFunctionsPerRequest: 1,
};

const prices = {
  cloudwatch_logs_ingestion_per_gb: 0,
  cloudwatch_logs_storage_gb_month: 0,
  cloudwatch_custom_metric_month: 0.3,
  cloudwatch_alarm_metric_month: 0.1,
  cloudwatch_high_resolution_alarm_metric_month: 0.3,
  cloudwatch_dashboard_month: 3,
  xray_traces_recorded_per_million: 5,
  waf_web_acl_month: 5,
  waf_rule_month: 1,
  waf_requests_per_million: 0.6,
  secrets_manager_secret_month: 0.4,
  secrets_manager_api_calls_per_10000: 10_000, // $1 a call, to count them
  cloudfront_https_requests_per_10000: 0.01,
  cloudfront_data_transfer_out_per_gb: 0,
  cloudfront_functions_invocations_per_million: 0.1,
} as Prices;

const input = (over: Partial<OperationsInput> = {}): OperationsInput => ({
  scenario: { ...SCENARIO, daysPerMonth: 1, apiInstances: 2, warmInstancesPerFunction: 1, coldStartsPerInstancePerDay: 12, uploadRefusalCodes: 8 },
  prices,
  topology,
  facts,
  invocations: new Map(),
  functionLogBytes: 0,
  functionLogLines: 0,
  emfBytes: 0,
  emfLines: 0,
  httpApiRequests: 0,
  edgeRequests: 2_000_000,
  anonymousRequests: 500_000,
  anonymousBytes: 0,
  ...over,
});

const lineOf = (name: string, over: Partial<OperationsInput> = {}) => operationsLines(input(over)).find((l) => l.name === name);

describe('cost model: the operator’s lines', () => {
  it('CloudFront misses: 1 / (1 + λT) for a fixed max-age, once an hour for answers that expire at the hour, always when not cached', () => {
    // One URL, one cache, one request a second, kept 300 s: 1 miss then 300 hits.
    expect(cdnMissRate(86_400, 1, { seconds: 300 }, 1)).toBeCloseTo(1 / 301, 12);
    // The same spread over 4 caches: each sees a quarter of the requests.
    expect(cdnMissRate(86_400, 1, { seconds: 300 }, 4)).toBeCloseTo(1 / 76, 12);
    // One request an hour on average, expiring at the hour: a miss in each hour with any request, (1 − 1/e) / 1.
    expect(cdnMissRate(24, 1, 'hour', 1)).toBeCloseTo(1 - Math.exp(-1), 12);
    // 120 000 item pages read 100 000 times a day: almost every read is the first of its URL in its hour.
    expect(cdnMissRate(100_000, 120_000, 'hour', 4)).toBeGreaterThan(0.99);
    expect(cdnMissRate(1000, 1, null, 1)).toBe(1);
  });

  it('X-Ray: per function starting traces, the first request a second and 5 % of the rest; merge and push continue traces', () => {
    const day = 86_400;
    const traces = xrayTraces(
      new Map([
        ['api', 3 * day], // 3 a second: 1 + 0.05 × 2
        ['seal', 0.5 * day], // under one a second: each is its second's first
        ['merge', 10 * day], // the upload's trace
        ['push', 10 * day],
      ]),
      1,
    );
    expect(traces).toBeCloseTo(1.1 * day + 0.5 * day, 6);
    // Only the functions the template traces record: api's, not pages'.
    const both = new Map([
      ['api', 3 * day],
      ['pages', 3 * day],
    ]);
    const traced = lineOf('X-Ray traces', { facts: { ...facts, tracedFunctions: ['api', 'merge'] }, invocations: both });
    expect(traced?.usd_month).toBeCloseTo((1.1 * day * 5) / 1e6, 9);
    // A stage without tracing records none.
    expect(lineOf('X-Ray traces', { invocations: both })?.usd_month).toBe(0);
  });

  it('Lambda’s own lines: START, END and REPORT per invocation, and the XRAY line when traced, 26 bytes an event', () => {
    const untraced = platformLogBytes(false);
    expect(untraced).toBeGreaterThan(3 * LOG_EVENT_OVERHEAD_BYTES + 150);
    expect(platformLogBytes(true) - untraced).toBe(Buffer.byteLength(PLATFORM_XRAY_LINE) + LOG_EVENT_OVERHEAD_BYTES);
  });

  it('an access line is the template’s format with the request’s values', () => {
    const format = '{"requestId":"$context.requestId","status":"$context.status","other":"$context.identity.sourceIp"}';
    expect(accessLogLineBytes(format)).toBe(Buffer.byteLength(`{"requestId":"JjSBvgwqIAMEJ3g=","status":"200","other":"${'x'.repeat(20)}"}`) + 26);
  });

  it('every metric the functions emit is priced, each name × its dimension values', () => {
    const series = metricSeries(topology, SCENARIO);
    expect(Object.keys(series).sort()).toEqual(Object.values(METRIC).sort());
    expect(series.answers_5xx).toBe(3); // api, upload, pages
    expect(series.merge_duration_ms).toBe(6); // by market
    expect(series.uploads_refused).toBe(SCENARIO.uploadRefusalCodes); // by code
    const total = Object.values(series).reduce((s, n) => s + n, 0);
    expect(lineOf('CloudWatch custom metrics')?.usd_month).toBeCloseTo(total * 0.3, 9);
  });

  it('alarms by the metrics they read (high resolution dearer), dashboards, WAF and secrets from the template’s counts', () => {
    expect(lineOf('CloudWatch alarms')?.usd_month).toBeCloseTo(4 * 0.1 + 1 * 0.3, 9);
    expect(lineOf('CloudWatch dashboards')?.usd_month).toBe(3);
    // 1 web ACL + 2 rules + 2 M requests × $0.60.
    expect(lineOf('WAF')?.usd_month).toBeCloseTo(5 + 2 + 1.2, 9);
    expect(lineOf('WAF', { facts: { ...facts, webAcls: 0, webAclRules: 0 } })?.usd_month).toBe(0);
    // 2 secrets × $0.40 + calls at $1: api (2 instances × 12 cold starts × 2 secrets + 2 × 288 origin re-reads),
    // push (1 × 12 × 1); merge reads none.
    expect(lineOf('Secrets Manager')?.usd_month).toBeCloseTo(0.8 + (48 + 576 + 12), 9);
    // CloudFront passes the rest of the edge's requests on: 1.5 M at $0.01 per 10 000.
    expect(lineOf('CloudFront: signed-in traffic')?.usd_month).toBeCloseTo(1.5, 9);
    // Every request through the public distribution runs its viewer-request function: 2 M × $0.10 a million.
    expect(lineOf('CloudFront Functions')?.usd_month).toBeCloseTo(0.2, 9);
    expect(lineOf('CloudFront Functions', { facts: { ...facts, edgeFunctionsPerRequest: 0 } })?.usd_month).toBe(0);
  });

  it('counts a template’s alarms and the metrics they read, dashboards, secrets, WAF rules, tracing, access formats and retention', () => {
    const template = {
      Resources: {
        One: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors', Period: 60 } },
        Math: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            Metrics: [
              { Id: 'a', MetricStat: { Period: 300 } },
              { Id: 'b', MetricStat: { Period: 300 } },
              { Id: 'e', Expression: 'a / b' },
            ],
          },
        },
        Fast: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Age', Period: 10 } },
        Board: { Type: 'AWS::CloudWatch::Dashboard', Properties: {} },
        S1: { Type: 'AWS::SecretsManager::Secret' },
        S2: { Type: 'AWS::SecretsManager::Secret' },
        Acl: { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}, {}, {}] } },
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: { Description: 'merge (production)', TracingConfig: { Mode: 'Active' }, LoggingConfig: { LogGroup: { Ref: 'FnLogs' } } },
        },
        Other: { Type: 'AWS::Lambda::Function', Properties: { LoggingConfig: { LogGroup: { Ref: 'OtherLogs' } } } },
        FnLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 90 } },
        OtherLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 14 } },
        Unrelated: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 731 } },
        Stage: { Type: 'AWS::ApiGatewayV2::Stage', Properties: { AccessLogSettings: { Format: '{"s":"$context.status"}' } } },
        Quiet: { Type: 'AWS::ApiGatewayV2::Stage', Properties: {} },
        Files: { Type: 'AWS::CloudFront::Distribution', Properties: { DistributionConfig: { DefaultCacheBehavior: {} } } },
        Site: {
          Type: 'AWS::CloudFront::Distribution',
          Properties: {
            DistributionConfig: {
              DefaultCacheBehavior: { FunctionAssociations: [{}] },
              CacheBehaviors: [
                { PathPattern: '/api/v1/live', FunctionAssociations: [{}] },
                { PathPattern: '/api/*', FunctionAssociations: [{}] },
                { PathPattern: '/assets/*' }, // the site's static files: not the scenario's requests
              ],
            },
          },
        },
      },
    };
    expect(templateFacts(template)).toEqual({
      alarms: 3,
      alarmMetrics: 4,
      highResolutionAlarmMetrics: 1,
      dashboards: 1,
      secrets: 2,
      webAcls: 1,
      webAclRules: 3,
      tracedFunctions: ['merge'],
      accessLogFormats: ['{"s":"$context.status"}'],
      logRetentionDays: 90,
      edgeFunctionsPerRequest: 1,
    });
  });
});
