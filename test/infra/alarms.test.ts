/**
 * Alarms and a dashboard (issue 26 point 2), in the template: per function errors and throttles, the
 * fan-out's iterator age, the table's throttles and system errors, the WebSocket API's errors, CloudFront's
 * 5xx rate (where the stack shares CloudFront's metrics region), the business metrics the functions emit, all
 * notifying the stage's topic; and one dashboard per stage with the graphs an on-call person needs.
 */
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../shared/telemetry/metric-names';
import { FUNCTIONS, MERGE_QUEUES, SCHEDULES } from '../../shared/topology';
import { type CfnResource, functionId, mentions, ofType, type Synthesized, synth } from './synth';

interface AlarmProps {
  AlarmName: string;
  MetricName?: string;
  Namespace?: string;
  Dimensions?: Array<{ Name: string; Value: unknown }>;
  Statistic?: string;
  Period?: number;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  TreatMissingData: string;
  AlarmActions: unknown[];
  Metrics?: Array<{
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: Array<{ Name: string; Value: unknown }> } };
  }>;
}

const alarmsOf = (s: Synthesized): Map<string, AlarmProps> =>
  new Map(
    ofType(s, 'AWS::CloudWatch::Alarm').map(([, a]) => {
      const props = a.Properties as unknown as AlarmProps;
      return [props.AlarmName.replace(`${s.stack.stackName}-`, ''), props];
    }),
  );

/** The one alarm of that id (fails the test when missing). */
function alarm(s: Synthesized, id: string): AlarmProps {
  const found = alarmsOf(s).get(id);
  if (!found) throw new Error(`no alarm ${id} in ${s.stage}`);
  return found;
}

/** Metric names an alarm reads (its own, or those of its metric math). */
const metricNames = (a: AlarmProps): string[] =>
  a.MetricName ? [a.MetricName] : (a.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : []));

const topicId = (s: Synthesized): string => ofType(s, 'AWS::SNS::Topic')[0][0];

describe('alarms (issue 26 point 2)', () => {
  it('every alarm is named for the runbook and notifies the stage topic', () => {
    for (const stage of ['production', 'dev', 'preview-abc']) {
      const s = synth(stage);
      const all = ofType(s, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties as unknown as AlarmProps);
      for (const a of all) {
        expect(a.AlarmName.startsWith(`${s.stack.stackName}-`), a.AlarmName).toBe(true);
        expect(a.AlarmActions, a.AlarmName).toEqual([{ Ref: topicId(s) }]);
      }
    }
  });

  it('watches each function for errors and throttles', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS) {
      const fn = functionId(s, spec.name);
      for (const [id, metricName, threshold] of [
        [`${spec.name}-errors`, 'Errors', 2],
        [`${spec.name}-throttles`, 'Throttles', 0],
      ] as const) {
        const a = alarm(s, id);
        expect(a).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: metricName, Statistic: 'Sum', Period: 300, Threshold: threshold });
        expect(a.ComparisonOperator).toBe('GreaterThanThreshold');
        expect(mentions(a.Dimensions, fn), id).toBe(true);
      }
    }
  });

  it("watches the fan-out's iterator age, the table's throttles and system errors and the WebSocket API's errors", () => {
    const s = synth('dev');
    expect(alarm(s, 'fanout-iterator-age')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 300_000,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(s, 'fanout') } }],
    });
    const [[tableId]] = ofType(s, 'AWS::DynamoDB::Table');
    const throttles = alarm(s, 'table-throttles');
    expect(metricNames(throttles).sort()).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
    expect(mentions(throttles.Metrics, tableId)).toBe(true);
    const systemErrors = alarm(s, 'table-system-errors');
    expect(new Set(metricNames(systemErrors))).toEqual(new Set(['SystemErrors']));
    expect(metricNames(systemErrors).length).toBeGreaterThanOrEqual(6);
    expect(systemErrors.Threshold).toBe(0);
    const [[wsApiId]] = ofType(s, 'AWS::ApiGatewayV2::Api').filter(([, a]) => a.Properties.ProtocolType === 'WEBSOCKET');
    const live = alarm(s, 'live-errors');
    expect(metricNames(live).sort()).toEqual(['ExecutionError', 'IntegrationError']);
    expect(mentions(live.Metrics, wsApiId)).toBe(true);
  });

  it("watches CloudFront's 5xx rate where the stack shares its metrics' region (production, us-east-1)", () => {
    const s = synth('production');
    const [[distributionId]] = ofType(s, 'AWS::CloudFront::Distribution').filter(([id]) => id.startsWith('Site'));
    const a = alarm(s, 'edge-5xx-rate');
    expect(a).toMatchObject({ Namespace: 'AWS/CloudFront', MetricName: '5xxErrorRate', Statistic: 'Average', Threshold: 5, EvaluationPeriods: 3 });
    expect(a.Dimensions).toEqual([
      { Name: 'DistributionId', Value: { Ref: distributionId } },
      { Name: 'Region', Value: 'Global' },
    ]);
    // Elsewhere an alarm could not read us-east-1's metrics: the dashboard shows the rate instead.
    expect(alarmsOf(synth('dev')).has('edge-5xx-rate')).toBe(false);
  });

  it('watches the business metrics the functions emit, with the thresholds written down', () => {
    const prod = synth('production');
    expect(alarm(prod, 'uploads-stopped')).toMatchObject({
      Namespace: 'MarketData',
      MetricName: METRIC.uploadsAccepted,
      Dimensions: [{ Name: 'service', Value: 'upload' }],
      Period: 3600,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    // A stage without traffic would page all day: only production expects uploads every hour.
    expect(alarmsOf(synth('dev')).has('uploads-stopped')).toBe(false);
    for (const s of [prod, synth('dev')]) {
      const badBook = alarm(s, 'uploads-refused-bad-book');
      expect(metricNames(badBook).sort()).toEqual([METRIC.uploadsAccepted, METRIC.uploadsRefused]);
      expect(JSON.stringify(badBook.Metrics)).toContain('"Name":"code","Value":"bad_book"');
      expect(badBook.Threshold).toBe(50);
      const push = alarm(s, 'push-failed');
      expect(metricNames(push).sort()).toEqual([METRIC.pushFailed, METRIC.pushSent]);
      expect(push.Threshold).toBe(50);
      for (const a of [badBook, push]) expect(a.Metrics?.find((m) => m.Expression)?.Expression).toContain('>= 20');
    }
  });
});

/** The dashboard's body as one string (its intrinsic functions joined). */
function bodyOf(d: CfnResource): string {
  const body = d.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  return body['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('');
}

describe('dashboard (issue 26 point 2)', () => {
  it('one per stage, showing merges and their lag, uploads by code, answers by class, sockets, fan-out, pushes and the jobs', () => {
    for (const stage of ['production', 'dev', 'preview-abc']) {
      const s = synth(stage);
      const dashboards = ofType(s, 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      expect(dashboards[0][1].Properties.DashboardName).toBe(s.stack.stackName);
      const body = bodyOf(dashboards[0][1]);
      for (const name of [
        METRIC.mergeDurationMs,
        METRIC.uploadsAccepted,
        METRIC.uploadsRefused,
        METRIC.answers2xx,
        METRIC.answers3xx,
        METRIC.answers4xx,
        METRIC.answers5xx,
        METRIC.fanoutDurationMs,
        METRIC.fanoutPosts,
        METRIC.pushSent,
        METRIC.pushFailed,
      ]) {
        expect(body, name).toContain(name);
      }
      // Refused uploads by code, merges by market.
      expect(body).toContain(`{MarketData,service,code} MetricName=\\"${METRIC.uploadsRefused}\\"`);
      expect(body).toContain(`{MarketData,service,market} MetricName=\\"${METRIC.mergeDurationMs}\\"`);
      // Merge lag: every merge queue's oldest message.
      for (const q of MERGE_QUEUES) {
        const [[queueId]] = ofType(s, 'AWS::SQS::Queue').filter(([id]) => id.startsWith(`MergeQueues${q.name.replaceAll('-', '')}Queue`));
        expect(body).toContain('ApproximateAgeOfOldestMessage');
        expect(mentions(dashboards[0][1].Properties.DashboardBody, queueId), q.name).toBe(true);
      }
      for (const name of ['ConnectCount', 'MessageCount', 'IteratorAge', '5xxErrorRate']) expect(body, name).toContain(name);
      // The jobs: each scheduled function's successful runs.
      for (const job of SCHEDULES) expect(mentions(dashboards[0][1].Properties.DashboardBody, functionId(s, job.function)), job.name).toBe(true);
      expect(body).toContain('Invocations');
    }
  });
});
