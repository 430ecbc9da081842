import { Duration, Stack, Token } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type IMetric, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { METRIC } from '../../shared/telemetry/metric-names';
import type { StageConfig } from '../stages';
import type { DataTable } from './data-table';
import type { ManifestQueue } from './queues';
import type { ScheduledJob } from './schedules';
import type { ServiceFunction } from './service-function';
import { cloudFront5xxRate, emf, emfWith, PERIOD, TABLE_OPERATIONS, tableThrottles } from './service-metrics';

/** A merge waiting longer than this means a market's queue is stuck (a merge takes seconds). */
const MERGE_AGE_LIMIT = Duration.minutes(15);

/** 5xx answers per five minutes tolerated before paging: a single cold-start timeout should not wake anyone. */
const SERVER_ERROR_LIMIT = 5;

/**
 * Unhandled errors of one function per five minutes tolerated: the handlers answer their own errors (an HTTP
 * 5xx, a batch item failure), so a Lambda error is a crash or a timeout; one or two are a sandbox recycled
 * mid-call or a cold start that met a slow dependency, which the caller's or the queue's retry covers. A
 * third within five minutes is no longer chance.
 */
const FUNCTION_ERROR_LIMIT = 2;

/**
 * Throttled invocations tolerated per five minutes: none. Each function's concurrency is bounded on purpose
 * (queues' `maxConcurrency` under the reserved concurrency, the stream's shards), so a throttle means the
 * account or a reservation ran out: a reader got an error, or a merge or a fan-out waits.
 */
const THROTTLE_LIMIT = 0;

/**
 * How far the fan-out may fall behind the table's stream: a live update is worth seconds; five minutes
 * behind, every client sees stale prices, and at an hour (the mapping's maximum record age) records are
 * skipped for good.
 */
const ITERATOR_AGE_LIMIT = Duration.minutes(5);

/**
 * DynamoDB throttle events tolerated per five minutes: the SDK retries a throttled call up to three times
 * (shared/store/clients/dynamodb.ts), so a few are absorbed; beyond five, answers and merges slow or fail.
 */
const TABLE_THROTTLE_LIMIT = 5;

/** WebSocket integration and execution errors per five minutes: as for the HTTP API, one cold start must not page. */
const LIVE_ERROR_LIMIT = 5;

/**
 * CloudFront's 5xx share (percent) sustained for three five-minute periods: the origin alarms page on bursts;
 * this one catches what only the edge sees (the origin unreachable, a rotated origin secret not yet read).
 */
const EDGE_5XX_PERCENT = 5;
const EDGE_5XX_PERIODS = 3;

/**
 * Production only: no upload accepted in an hour. The scenario (docs/cost.md) has 300 books a day per market,
 * about 75 an hour across six markets: an hour without one means the upload route, its storage or the desktop
 * app is broken. Missing data counts as none.
 */
const UPLOADS_STOPPED_PERIOD = Duration.hours(1);

/**
 * Refused uploads for `bad_book` as a share (percent) of all uploads in an hour, once there are at least
 * {@link SHARE_MIN_COUNT}: a desktop release that writes books the spec refuses shows here first.
 */
const BAD_BOOK_PERCENT = 50;

/**
 * Failed pushes as a share (percent) of all in an hour, once there are at least {@link SHARE_MIN_COUNT}: gone
 * subscriptions count as failed and are normal, but half failing means the VAPID keys or the push services are wrong.
 */
const PUSH_FAILED_PERCENT = 50;

/** The shares above mean nothing over a handful: at least this many in the hour. */
const SHARE_MIN_COUNT = 20;

const HOUR = Duration.hours(1);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The stage's alarm address, checked: production's alarms must reach someone, so production without one
 * (or with something that is not an address) refuses to synthesize.
 */
export function alarmEmailOf(stage: StageConfig): string | undefined {
  const email = stage.alarmEmail;
  if (email !== undefined && !EMAIL.test(email)) throw new Error(`stage ${stage.stage}: alarmEmail "${email}" is not an email address`);
  if (email === undefined && stage.env === 'production') {
    throw new Error(
      `stage ${stage.stage} has no alarmEmail, so no alarm would reach anyone: deploy with -c alarmEmail=<address> and confirm the subscription email SNS sends`,
    );
  }
  return email;
}

/** Props of {@link ServiceAlarms}. */
export interface ServiceAlarmsProps {
  stage: StageConfig;
  queues: readonly ManifestQueue[];
  mergeQueues: readonly ManifestQueue[];
  /** Merges set aside for their own data (never redriven). */
  mergeRejected: IQueue;
  serverErrors: IMetric;
  /** Every function of the manifest (errors and throttles). */
  functions: readonly ServiceFunction[];
  /** The table's stream consumer (its iterator age) and where it records the batches it gave up on. */
  streamConsumer: ServiceFunction;
  streamFailed: IQueue;
  /** Each schedule's queue of failed runs. */
  jobs: readonly ScheduledJob[];
  table: DataTable;
  liveStage: WebSocketStage;
  /** The public distribution's id (its 5xx rate, alarmed where the stack is in us-east-1, as CloudFront's metrics are). */
  distributionId: string;
}

/** Options of one alarm beyond its name, description, metric and threshold. */
interface AlarmOptions {
  description: string;
  metric: IMetric;
  threshold: number;
  comparison?: ComparisonOperator;
  evaluationPeriods?: number;
  missing?: TreatMissingData;
}

/**
 * Every alarm of a stage, each named `<stack>-<id>` so the runbook (docs/runbook.md) finds it by its id: every
 * dead-letter queue holding a message (merge dead letters are also redriven once storage answers), the
 * rejected merges, stuck merge queues (an outage shows here first), API 5xx, the two contract-level risks the
 * merge watches (shared/domain/book-watch.ts; docs/security.md), each function's errors and throttles, the
 * fan-out's iterator age, the table's throttles and system errors, the WebSocket API's errors, the edge's 5xx
 * rate, failed scheduled runs and skipped stream batches, and the business metrics' thresholds above.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly stackName: string;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { stage } = props;
    const email = alarmEmailOf(stage);
    this.stackName = Stack.of(this).stackName;
    this.topic = new Topic(this, 'Topic', { displayName: `Market data alarms (${stage.stage})`, enforceSSL: true });
    // `enforceSSL` gives the topic a policy of its own, which replaces SNS's default one (the account may
    // publish): without this statement CloudWatch may not publish and no alarm would notify anyone.
    const account = Stack.of(this).account;
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': account } },
      }),
    );
    if (email) {
      const subscription = this.topic.addSubscription(new EmailSubscription(email));
      NagSuppressions.addResourceSuppressions(subscription, [
        {
          id: 'Serverless-SNSRedrivePolicy',
          reason:
            'The one subscription is the on-call email: SNS retries a mail server itself, and a dead-letter queue of undelivered alarm notifications could only be alarmed through this same topic; the alarms stay visible in CloudWatch and on the dashboard.',
        },
      ]);
    }
    NagSuppressions.addResourceSuppressions(this.topic, [
      {
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry only alarm names and states; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer key would cost more than the data is worth.',
      },
    ]);
    this.queueAlarms(props);
    this.functionAlarms(props);
    this.platformAlarms(props);
    this.businessAlarms(props);
  }

  /** Dead letters, rejected merges, stuck merge queues, failed scheduled runs and skipped stream batches. */
  private queueAlarms(props: ServiceAlarmsProps): void {
    const holding = (q: IQueue) => q.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' });
    for (const q of props.queues) {
      const redriven = props.mergeQueues.includes(q) ? '; the redrive schedule returns them once the table and bucket answer' : '';
      this.alarm(`${q.spec.name}-dead-letters`, {
        description: `Messages of ${q.spec.name} were received ${q.spec.maxReceives} times and wait in its dead-letter queue${redriven}`,
        metric: holding(q.deadLetterQueue),
        threshold: 0,
      });
    }
    this.alarm('merge-rejected', {
      description:
        'A book failed to merge for its own data (or kept dying in its merge) and waits in the rejected queue for an operator; the log line names its market and at',
      metric: holding(props.mergeRejected),
      threshold: 0,
    });
    for (const q of props.mergeQueues) {
      this.alarm(`${q.spec.name}-age`, {
        description: `The oldest ${q.spec.name} message waits longer than ${MERGE_AGE_LIMIT.toMinutes()} minutes`,
        metric: q.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
        threshold: MERGE_AGE_LIMIT.toSeconds(),
      });
    }
    for (const job of props.jobs) {
      this.alarm(`${job.spec.name}-failed-runs`, {
        description: `A scheduled ${job.spec.name} run threw, timed out or could not be invoked; its event waits in the ${job.spec.name} failed-runs queue`,
        metric: holding(job.failedRuns),
        threshold: 0,
      });
    }
    this.alarm('stream-failed', {
      description: `The ${props.streamConsumer.spec.name} function gave up on a table stream batch (retries exhausted or records older than an hour); its shard and sequence numbers wait in the stream-failed queue`,
      metric: holding(props.streamFailed),
      threshold: 0,
    });
  }

  /** Per function: unhandled errors and throttles. */
  private functionAlarms(props: ServiceAlarmsProps): void {
    for (const fn of props.functions) {
      const name = fn.spec.name;
      this.alarm(`${name}-errors`, {
        description: `The ${name} function failed more than ${FUNCTION_ERROR_LIMIT} invocations in five minutes (crashes or timeouts, not answered errors)`,
        metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: FUNCTION_ERROR_LIMIT,
      });
      this.alarm(`${name}-throttles`, {
        description: `Invocations of the ${name} function were throttled (account or reserved concurrency exhausted)`,
        metric: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: THROTTLE_LIMIT,
      });
    }
  }

  /** The stream's lag, the table, the WebSocket API, the edge and the HTTP API. */
  private platformAlarms(props: ServiceAlarmsProps): void {
    this.alarm('fanout-iterator-age', {
      description: `Live fan-out is more than ${ITERATOR_AGE_LIMIT.toMinutes()} minutes behind the table's stream`,
      metric: props.streamConsumer.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' }),
      threshold: ITERATOR_AGE_LIMIT.toMilliseconds(),
    });
    this.alarm('table-throttles', {
      description: `DynamoDB throttled more than ${TABLE_THROTTLE_LIMIT} requests of the table in five minutes`,
      metric: tableThrottles(props.table),
      threshold: TABLE_THROTTLE_LIMIT,
    });
    this.alarm('table-system-errors', {
      description: 'DynamoDB answered requests of the table with a 500 (an error on its side)',
      metric: props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS.map((o) => o as never), period: PERIOD, statistic: 'Sum' }),
      threshold: 0,
    });
    this.alarm('live-errors', {
      description: `The WebSocket API met more than ${LIVE_ERROR_LIMIT} integration or execution errors in five minutes (connects, messages or disconnects failing)`,
      metric: new MathExpression({
        expression: 'FILL(integration, 0) + FILL(execution, 0)',
        usingMetrics: {
          integration: props.liveStage.metric('IntegrationError', { period: PERIOD, statistic: 'Sum' }),
          execution: props.liveStage.metric('ExecutionError', { period: PERIOD, statistic: 'Sum' }),
        },
        period: PERIOD,
      }),
      threshold: LIVE_ERROR_LIMIT,
    });
    const region = Stack.of(this).region;
    // CloudWatch alarms cannot watch another region's metrics: the edge's rate is alarmed only where the stack
    // lives in us-east-1 (production, with its web ACL); elsewhere it is on the dashboard (docs/runbook.md).
    if (!Token.isUnresolved(region) && region === 'us-east-1') {
      this.alarm('edge-5xx-rate', {
        description: `More than ${EDGE_5XX_PERCENT}% of the public distribution's answers were 5xx for ${EDGE_5XX_PERIODS * PERIOD.toMinutes()} minutes`,
        metric: cloudFront5xxRate(props.distributionId),
        threshold: EDGE_5XX_PERCENT,
        evaluationPeriods: EDGE_5XX_PERIODS,
      });
    }
    this.alarm('http-5xx', {
      description: `More than ${SERVER_ERROR_LIMIT} server errors in five minutes`,
      metric: props.serverErrors,
      threshold: SERVER_ERROR_LIMIT,
    });
  }

  /** The merge's watched risks and the EMF business metrics (thresholds above). */
  private businessAlarms(props: ServiceAlarmsProps): void {
    this.alarm('merge-blanked-market', {
      description:
        'One complete book marked more than half of a market\'s listed keys gone (log "merge: one complete book marked most of the market gone" names the market, at and uploader): check it, withhold the uploader\'s upload feature, restore the rows if it lied',
      metric: emf('merge', METRIC.mergeBlankedMarket),
      threshold: 0,
    });
    this.alarm('merge-snapshot-replay', {
      description:
        "A credited book's prices are the last hourly snapshot's (log \"merge: a credited book repeats the last hourly snapshot\" names the market, at and uploader): check it, withhold the uploader's upload feature if it is a replay",
      metric: emf('merge', METRIC.mergeSnapshotReplay),
      threshold: 0,
    });
    if (props.stage.env === 'production') {
      this.alarm('uploads-stopped', {
        description: `No upload was accepted in ${UPLOADS_STOPPED_PERIOD.toMinutes()} minutes (about 75 an hour are expected)`,
        metric: emf('upload', METRIC.uploadsAccepted, { period: UPLOADS_STOPPED_PERIOD }),
        threshold: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        missing: TreatMissingData.BREACHING,
      });
    }
    this.alarm('uploads-refused-bad-book', {
      description: `More than ${BAD_BOOK_PERCENT}% of an hour's uploads (at least ${SHARE_MIN_COUNT}) were refused as bad_book`,
      metric: share(emfWith('upload', METRIC.uploadsRefused, { code: 'bad_book' }, HOUR), emf('upload', METRIC.uploadsAccepted, { period: HOUR })),
      threshold: BAD_BOOK_PERCENT,
    });
    this.alarm('push-failed', {
      description: `More than ${PUSH_FAILED_PERCENT}% of an hour's pushes (at least ${SHARE_MIN_COUNT}) failed or found their subscription gone`,
      metric: share(emf('push', METRIC.pushFailed, { period: HOUR }), emf('push', METRIC.pushSent, { period: HOUR })),
      threshold: PUSH_FAILED_PERCENT,
    });
  }

  /** One alarm named `<stack>-<id>`, notifying the topic (whose policy allows CloudWatch of this account only). */
  private alarm(id: string, props: AlarmOptions): void {
    const alarm = new Alarm(this, id, {
      alarmName: `${this.stackName}-${id}`,
      alarmDescription: `${props.description}. Runbook: docs/runbook.md, alarm ${id}`,
      metric: props.metric,
      threshold: props.threshold,
      comparisonOperator: props.comparison ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: props.evaluationPeriods ?? 1,
      treatMissingData: props.missing ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}

/** `part` as a percentage of `part + rest`, 0 below {@link SHARE_MIN_COUNT} in the period. */
function share(part: IMetric, rest: IMetric): IMetric {
  return new MathExpression({
    expression: `IF(FILL(part, 0) + FILL(rest, 0) >= ${SHARE_MIN_COUNT}, 100 * FILL(part, 0) / (FILL(part, 0) + FILL(rest, 0)), 0)`,
    usingMetrics: { part, rest },
    period: HOUR,
  });
}
