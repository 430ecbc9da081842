/**
 * What an operator pays besides the requests (issue 26 point 9): CloudWatch Logs (the functions' measured
 * lines, Lambda's own lines, API Gateway's access lines), custom metrics, alarms and dashboards, X-Ray, WAF,
 * Secrets Manager, and CloudFront for the anonymous reads it caches and the signed-in traffic it passes on.
 * Pure: scripts/cost/model.ts gathers the month's quantities and calls {@link operationsLines}.
 */
import type { CostLine, CostTopology, Prices } from './inputs';
import type { Scenario } from './scenario';
import type { TemplateFacts } from './template';

const GB = 1024 ** 3;

/**
 * CloudWatch Logs counts each log event as its UTF-8 message plus 26 bytes (PutLogEvents' batch size rule,
 * https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html, read 2026-11-28).
 */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

/**
 * The lines Lambda itself writes per invocation in the text log format (the stack sets no JSON format for
 * them): START, END and REPORT, and with active tracing an XRAY line. The example lines of
 * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html (read 2026-11-28) with the
 * stack's memory sizes' widths; they are AWS's lines, not the code's, so they are not measured locally.
 */
export const PLATFORM_LINES = [
  'START RequestId: 6bc28136-xmpl-4365-b021-0ce6b2e64ab0 Version: $LATEST',
  'END RequestId: 6bc28136-xmpl-4365-b021-0ce6b2e64ab0',
  'REPORT RequestId: 6bc28136-xmpl-4365-b021-0ce6b2e64ab0\tDuration: 24.01 ms\tBilled Duration: 25 ms\tMemory Size: 1024 MB\tMax Memory Used: 155 MB\t',
];
export const PLATFORM_XRAY_LINE = 'XRAY TraceId: 1-5e34a614-10bdxmplf1fb44f07bc535a1\tSegmentId: 07f5xmpl2d1f6f85\tSampled: true\t';

/** Ingested bytes of Lambda's own lines for one invocation. */
export function platformLogBytes(traced: boolean): number {
  const lines = traced ? [...PLATFORM_LINES, PLATFORM_XRAY_LINE] : PLATFORM_LINES;
  return lines.reduce((n, l) => n + Buffer.byteLength(l, 'utf8') + LOG_EVENT_OVERHEAD_BYTES, 0);
}

/**
 * Values of API Gateway's `$context` variables as one of the scenario's requests fills them (a request id of
 * API Gateway's 16 characters, the single-item route, a 200 in 25 ms, no integration error, a 2 KB answer).
 * Any other variable a format names is sized at 20 characters.
 */
const ACCESS_LOG_VALUES: Record<string, string> = {
  requestId: 'JjSBvgwqIAMEJ3g=',
  routeKey: 'GET /api/v1/ah/{market}/{item}',
  status: '200',
  responseLatency: '25',
  integrationErrorMessage: '-',
  responseLength: '2048',
};

/** Ingested bytes of one access-log line of `format` (the template's `AccessLogSettings.Format`). */
export function accessLogLineBytes(format: string): number {
  const line = format.replace(/\$context\.([A-Za-z0-9_.]+)/g, (_, name: string) => ACCESS_LOG_VALUES[name] ?? 'x'.repeat(20));
  return Buffer.byteLength(line, 'utf8') + LOG_EVENT_OVERHEAD_BYTES;
}

/**
 * The share of a cached URL's requests that CloudFront sends to the origin. Requests arrive evenly over `urls`
 * URLs and `caches` caches at `perDay` a day (Poisson). A fixed max-age of T seconds: each miss starts a
 * window of T in which the URL's λT further requests hit, so misses are 1 / (1 + λT). Answers that expire at
 * the top of the hour: a URL misses once in an hour it is read at all, so (1 − e^(−λH)) / (λH). Not cached: 1.
 */
export function cdnMissRate(perDay: number, urls: number, ttl: Scenario['anonymousReads'][string]['ttl'], caches: number): number {
  if (ttl === null || perDay <= 0) return 1;
  const perSecond = perDay / 86_400 / urls / caches;
  if (ttl === 'hour') {
    const x = perSecond * 3600;
    return x < 1e-9 ? 1 : (1 - Math.exp(-x)) / x;
  }
  return 1 / (1 + perSecond * ttl.seconds);
}

/**
 * Lambda samples invocations that arrive without a trace header at X-Ray's default rule (the stack defines no
 * sampling rule): the first request each second and 5 % of the rest
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-xray.html and
 * https://docs.aws.amazon.com/xray/latest/devguide/xray-console-sampling.html, read 2026-11-28). Modelled with
 * a reservoir of its own for each function and requests spread evenly over the month: an upper bound (where
 * X-Ray shares the default rule's reservoir among functions, fewer are recorded).
 */
export const XRAY_DEFAULT_SAMPLING = { reservoirPerSecond: 1, rate: 0.05 };

/** Functions whose invocations continue a trace begun upstream (the trace header carried across SQS, issue 26 point 1). */
export const TRACE_CARRIED_INTO: readonly string[] = ['merge', 'push'];

/** Traces recorded in a month: per function that starts traces, its sampled share of its invocations. */
export function xrayTraces(invocations: ReadonlyMap<string, number>, days: number): number {
  const seconds = days * 86_400;
  let traces = 0;
  for (const [fn, count] of invocations) {
    if (TRACE_CARRIED_INTO.includes(fn)) continue;
    const perSecond = count / seconds;
    const sampled =
      Math.min(perSecond, XRAY_DEFAULT_SAMPLING.reservoirPerSecond) +
      XRAY_DEFAULT_SAMPLING.rate * Math.max(0, perSecond - XRAY_DEFAULT_SAMPLING.reservoirPerSecond);
    traces += sampled * seconds;
  }
  return traces;
}

/**
 * The custom metrics the functions emit (shared/telemetry/metric-names.ts; EMF, namespace `MarketData`, every
 * one with the `service` dimension): each distinct name × dimension values is a metric of its own. By metric:
 * the functions that emit it and how many values its extra dimension takes.
 */
export function metricSeries(topology: CostTopology, scenario: Scenario): Record<string, number> {
  const http = topology.httpFunctions.length;
  return {
    // api, upload, pages: every answer by status class (shared/http/count-answers.ts).
    answers_2xx: http,
    answers_3xx: http,
    answers_4xx: http,
    answers_5xx: http,
    uploads_accepted: 1,
    // By the refusal's error code.
    uploads_refused: scenario.uploadRefusalCodes,
    // merge, by market.
    merge_duration_ms: topology.markets,
    merge_rows_changed: topology.markets,
    merge_blanked_market: 1,
    merge_snapshot_replay: 1,
    // Every function that writes market pages through the market store.
    write_units: topology.marketWriters.length,
    fanout_posts: 1,
    fanout_gone: 1,
    fanout_duration_ms: 1,
    push_sent: 1,
    push_failed: 1,
  };
}

/** The month's quantities the operator's lines price (gathered by the model from the figures and scenario). */
export interface OperationsInput {
  scenario: Scenario;
  prices: Prices;
  topology: CostTopology;
  facts: TemplateFacts;
  /** Lambda invocations in the month, by function. */
  invocations: ReadonlyMap<string, number>;
  /** The functions' own lines (measured bytes and lines per event × events): log lines and EMF lines. */
  functionLogBytes: number;
  functionLogLines: number;
  emfBytes: number;
  emfLines: number;
  /** Requests that reach the HTTP API (each writes an access-log line). */
  httpApiRequests: number;
  /** Requests through the public distribution: signed-in API, uploads, socket upgrades and anonymous reads. */
  edgeRequests: number;
  /** Anonymous answers CloudFront sends (hits and misses) and their bytes. */
  anonymousRequests: number;
  anonymousBytes: number;
}

export function operationsLines(input: OperationsInput): CostLine[] {
  const { scenario, prices, topology, facts } = input;
  const M = (n: number): string => `${(n / 1e6).toFixed(2)} M`;
  const lines: CostLine[] = [];
  const add = (name: string, usd: number, detail: string): void => {
    lines.push({ name, usd_month: usd, detail });
  };
  const invocations = [...input.invocations.values()].reduce((s, n) => s + n, 0);
  const traced = new Map([...input.invocations].filter(([fn]) => facts.tracedFunctions.includes(fn)));
  const tracedInvocations = [...traced.values()].reduce((s, n) => s + n, 0);

  // CloudWatch Logs: the functions' lines as measured, Lambda's own lines, and the HTTP API's access lines.
  const fnBytes = input.functionLogBytes + input.functionLogLines * LOG_EVENT_OVERHEAD_BYTES;
  const emf = input.emfBytes + input.emfLines * LOG_EVENT_OVERHEAD_BYTES;
  // Traced functions' invocations add the XRAY line.
  const platform = (invocations - tracedInvocations) * platformLogBytes(false) + tracedInvocations * platformLogBytes(true);
  const accessLine = facts.accessLogFormats.reduce((n, f) => n + accessLogLineBytes(f), 0);
  const access = input.httpApiRequests * accessLine;
  const ingested = fnBytes + emf + platform + access;
  add(
    'CloudWatch Logs ingestion',
    (ingested / GB) * prices.cloudwatch_logs_ingestion_per_gb,
    `${(ingested / GB).toFixed(2)} GB: functions' log lines ${(fnBytes / GB).toFixed(2)} GB and EMF metrics ${(emf / GB).toFixed(2)} GB (measured), Lambda's START/END/REPORT(/XRAY) ${(platform / GB).toFixed(2)} GB (${platformLogBytes(false)} B, traced ${platformLogBytes(true)} B × ${M(invocations)} invocations), HTTP API access lines ${(access / GB).toFixed(2)} GB (${accessLine} B × ${M(input.httpApiRequests)})`,
  );
  // Kept for the log groups' retention: a month's ingestion times the months kept (uncompressed: an upper bound).
  const months = facts.logRetentionDays === null ? 12 : facts.logRetentionDays / scenario.daysPerMonth;
  const stored = (ingested / GB) * months;
  add(
    'CloudWatch Logs storage',
    stored * prices.cloudwatch_logs_storage_gb_month,
    `${stored.toFixed(2)} GB kept (${facts.logRetentionDays ?? 'no'} days' retention${facts.logRetentionDays === null ? ', priced as a year' : ''}, uncompressed: an upper bound)`,
  );

  const series = metricSeries(topology, scenario);
  const metrics = Object.values(series).reduce((s, n) => s + n, 0);
  add(
    'CloudWatch custom metrics',
    metrics * prices.cloudwatch_custom_metric_month,
    `${metrics} metrics (${Object.keys(series).length} EMF names × their service and market or code dimensions; AWS's own metrics are free)`,
  );
  const standardAlarmMetrics = facts.alarmMetrics - facts.highResolutionAlarmMetrics;
  add(
    'CloudWatch alarms',
    standardAlarmMetrics * prices.cloudwatch_alarm_metric_month + facts.highResolutionAlarmMetrics * prices.cloudwatch_high_resolution_alarm_metric_month,
    `${facts.alarms} alarms reading ${facts.alarmMetrics} metrics (${facts.highResolutionAlarmMetrics} at high resolution), counted in the template`,
  );
  add('CloudWatch dashboards', facts.dashboards * prices.cloudwatch_dashboard_month, `${facts.dashboards} dashboard(s) in the template`);

  const traces = xrayTraces(traced, scenario.daysPerMonth);
  add(
    'X-Ray traces',
    (traces / 1e6) * prices.xray_traces_recorded_per_million,
    traced.size > 0
      ? `${M(traces)} traces recorded (${facts.tracedFunctions.length} functions traced; X-Ray's default sampling: 1 a second and 5% of the rest, per function starting a trace (an upper bound); merge and push continue the upload's and sender's)`
      : 'tracing off in this stage',
  );

  const wafRequests = facts.webAcls > 0 ? input.edgeRequests : 0;
  add(
    'WAF',
    facts.webAcls * prices.waf_web_acl_month + facts.webAclRules * prices.waf_rule_month + (wafRequests / 1e6) * prices.waf_requests_per_million,
    `${facts.webAcls} web ACL, ${facts.webAclRules} rules, ${M(wafRequests)} requests inspected`,
  );

  // Secrets: each instance reads its function's secrets at each cold start; behind CloudFront it re-reads the
  // origin secret every `originSecretRefreshMinutes` while warm.
  const instanceDays = (fn: string): number => (fn === 'api' ? scenario.apiInstances : scenario.warmInstancesPerFunction) * scenario.daysPerMonth;
  let secretCalls = 0;
  for (const [fn, names] of Object.entries(topology.secretsByFunction)) {
    if (names.length === 0) continue;
    secretCalls += instanceDays(fn) * scenario.coldStartsPerInstancePerDay * names.length;
    if (names.includes('origin')) secretCalls += instanceDays(fn) * ((24 * 60) / topology.originSecretRefreshMinutes);
  }
  add(
    'Secrets Manager',
    facts.secrets * prices.secrets_manager_secret_month + (secretCalls / 10_000) * prices.secrets_manager_api_calls_per_10000,
    `${facts.secrets} secrets, ${M(secretCalls)} GetSecretValue calls (at cold start; the origin secret every ${topology.originSecretRefreshMinutes} minutes while warm)`,
  );

  add(
    'CloudFront: anonymous reads',
    (input.anonymousRequests / 10_000) * prices.cloudfront_https_requests_per_10000 + (input.anonymousBytes / GB) * prices.cloudfront_data_transfer_out_per_gb,
    `${M(input.anonymousRequests)} HTTPS requests and ${(input.anonymousBytes / GB).toFixed(2)} GB out, hits and misses alike`,
  );
  const edgeFunctionRuns = input.edgeRequests * facts.edgeFunctionsPerRequest;
  add(
    'CloudFront Functions',
    (edgeFunctionRuns / 1e6) * prices.cloudfront_functions_invocations_per_million,
    `${M(edgeFunctionRuns)} viewer-request runs (${facts.edgeFunctionsPerRequest} a request through the public distribution: the credential guard, the live router)`,
  );
  const passed = input.edgeRequests - input.anonymousRequests;
  add(
    'CloudFront: signed-in traffic',
    (passed / 10_000) * prices.cloudfront_https_requests_per_10000,
    `${M(passed)} HTTPS requests CloudFront passes to the APIs uncached (API reads, uploads, socket upgrades; egress excluded)`,
  );
  return lines;
}
