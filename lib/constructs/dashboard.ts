/**
 * One CloudWatch dashboard per stage (issue 26 point 2), what an on-call person opens first: merges and their
 * lag, uploads accepted and refused by code, answers by status class, sockets and fan-out time, pushes sent
 * and failed, the scheduled jobs' runs (the last success is the newest non-zero point) and the alarms' states.
 *
 * Plain `aws-cloudwatch` rather than cdk-monitoring-constructs: the graphs are of this service's own EMF
 * metrics by their own names, the alarms are the runbook's (lib/constructs/alarms.ts, named for it), and the
 * template stays small enough to review line by line.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  type IWidget,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { METRIC } from '../../shared/telemetry/metric-names';
import type { StageConfig } from '../stages';
import type { ManifestQueue } from './queues';
import type { ScheduledJob } from './schedules';
import type { ServiceFunction } from './service-function';
import { cloudFront5xxRate, emf, emfSearch, PERIOD } from './service-metrics';

/** Props of {@link ServiceDashboard}. */
export interface ServiceDashboardProps {
  stage: StageConfig;
  mergeQueues: readonly ManifestQueue[];
  streamConsumer: ServiceFunction;
  liveStage: WebSocketStage;
  jobs: readonly ScheduledJob[];
  functionOf: (name: ScheduledJob['spec']['function']) => ServiceFunction;
  distributionId: string;
  alarms: readonly IAlarm[];
}

const WIDTH = 12;
const HEIGHT = 6;

const graph = (title: string, left: IMetric[], right: IMetric[] = [], leftLabel?: string): GraphWidget =>
  new GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT, leftYAxis: { min: 0, label: leftLabel, showUnits: false } });

/** The stage's dashboard, named `<stack>`. */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: stackName, defaultInterval: Duration.hours(6) });
    const rows: IWidget[][] = [
      [
        new TextWidget({
          markdown: `# ${stackName}\nAlarms, what each means and what to do: docs/runbook.md. Traces: X-Ray (annotations \`market\`, \`uploadId\`)${props.stage.tracing ? '' : ', off in this stage'}.`,
          width: 24,
          height: 2,
        }),
      ],
      [
        graph(
          'Merges per market (count) and their time (p95 ms)',
          [emfSearch(METRIC.mergeDurationMs, ['market'], 'SampleCount')],
          [emfSearch(METRIC.mergeDurationMs, ['market'], 'p95')],
        ),
        graph(
          'Merge lag: oldest waiting book per market (s)',
          props.mergeQueues.map((q) =>
            q.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum', label: q.spec.market ?? q.spec.name }),
          ),
        ),
      ],
      [
        graph('Uploads accepted, and refused by code', [
          emf('upload', METRIC.uploadsAccepted, { label: 'accepted' }),
          emfSearch(METRIC.uploadsRefused, ['code']),
        ]),
        graph(
          'Answers by status class (api, pages, upload)',
          [METRIC.answers2xx, METRIC.answers3xx, METRIC.answers4xx, METRIC.answers5xx].map((m) => emfSearch(m, [])),
        ),
      ],
      [
        graph(
          'Sockets: connects and messages',
          [
            props.liveStage.metric('ConnectCount', { period: PERIOD, statistic: 'Sum' }),
            props.liveStage.metric('MessageCount', { period: PERIOD, statistic: 'Sum' }),
          ],
          [emf('fanout', METRIC.fanoutPosts), emf('fanout', METRIC.fanoutGone)],
        ),
        graph(
          'Fan-out: batch time (p50, p99 ms) and stream lag (ms)',
          [emf('fanout', METRIC.fanoutDurationMs, { statistic: 'p50' }), emf('fanout', METRIC.fanoutDurationMs, { statistic: 'p99' })],
          [props.streamConsumer.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' })],
        ),
      ],
      [
        graph('Pushes sent and failed', [emf('push', METRIC.pushSent), emf('push', METRIC.pushFailed)]),
        graph('Edge: 5xx share (%)', [cloudFront5xxRate(props.distributionId)]),
      ],
      [
        graph(
          'Jobs: successful runs per hour (the last success is the newest non-zero point)',
          props.jobs.map((job, i) => successfulRuns(props.functionOf(job.spec.function), job.spec.name, i)),
        ),
        graph(
          'Jobs: failed runs waiting',
          props.jobs.map((job) => job.failedRuns.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum', label: job.spec.name })),
        ),
      ],
      [new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 8 })],
    ];
    for (const row of rows) this.dashboard.addWidgets(...row);
  }
}

/** Invocations that did not fail, per hour (`n` keeps the expression's ids apart within one graph). */
function successfulRuns(fn: ServiceFunction, label: string, n: number): IMetric {
  const hour = Duration.hours(1);
  const of = (metricName: string) =>
    new Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: { FunctionName: fn.functionName }, statistic: 'Sum', period: hour });
  return new MathExpression({
    expression: `FILL(runs${n}, 0) - FILL(failed${n}, 0)`,
    usingMetrics: { [`runs${n}`]: of('Invocations'), [`failed${n}`]: of('Errors') },
    period: hour,
    label,
  });
}
