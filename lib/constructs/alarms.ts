import { Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { METRIC, METRIC_NAMESPACE, type MetricName } from '../../shared/telemetry/metric-names';
import type { FunctionName } from '../../shared/topology';
import type { StageConfig } from '../stages';
import type { ManifestQueue } from './queues';

/** A merge waiting longer than this means a market's queue is stuck (a merge takes seconds). */
const MERGE_AGE_LIMIT = Duration.minutes(15);

/** 5xx answers per five minutes tolerated before paging: a single cold-start timeout should not wake anyone. */
const SERVER_ERROR_LIMIT = 5;

const PERIOD = Duration.minutes(5);

/** The merge function's EMF service dimension (shared/telemetry/function-telemetry.ts). */
const MERGE_SERVICE: FunctionName = 'merge';

/** A count the merge function emits without a market dimension, summed over five minutes. */
const mergeCount = (metricName: MetricName): IMetric =>
  new Metric({ namespace: METRIC_NAMESPACE, metricName, dimensionsMap: { service: MERGE_SERVICE }, statistic: 'Sum', period: PERIOD });

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
}

/**
 * Alarms on every dead-letter queue holding a message (merge dead letters are also redriven once storage
 * answers), on the rejected merges, on stuck merge queues (an outage shows here first), on API 5xx, and on
 * the two contract-level risks the merge watches (shared/domain/book-watch.ts; docs/security.md).
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { stage } = props;
    const email = alarmEmailOf(stage);
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
    if (email) this.topic.addSubscription(new EmailSubscription(email));
    NagSuppressions.addResourceSuppressions(this.topic, [
      {
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry only alarm names and states; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer key would cost more than the data is worth.',
      },
    ]);
    for (const q of props.queues) {
      const redriven = props.mergeQueues.includes(q) ? '; the redrive schedule returns them once the table and bucket answer' : '';
      this.alarm(`${q.spec.name}-dead-letters`, {
        description: `Messages of ${q.spec.name} were received ${q.spec.maxReceives} times and wait in its dead-letter queue${redriven}`,
        metric: q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        threshold: 0,
      });
    }
    this.alarm('merge-rejected', {
      description:
        'A book failed to merge for its own data (or kept dying in its merge) and waits in the rejected queue for an operator; the log line names its market and at',
      metric: props.mergeRejected.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      threshold: 0,
    });
    for (const q of props.mergeQueues) {
      this.alarm(`${q.spec.name}-age`, {
        description: `The oldest ${q.spec.name} message waits longer than ${MERGE_AGE_LIMIT.toMinutes()} minutes`,
        metric: q.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
        threshold: MERGE_AGE_LIMIT.toSeconds(),
      });
    }
    this.alarm('merge-blanked-market', {
      description:
        'One complete book marked more than half of a market\'s listed keys gone (log "merge: one complete book marked most of the market gone" names the market, at and uploader): check it, withhold the uploader\'s upload feature, restore the rows if it lied',
      metric: mergeCount(METRIC.mergeBlankedMarket),
      threshold: 0,
    });
    this.alarm('merge-snapshot-replay', {
      description:
        "A credited book's prices are the last hourly snapshot's (log \"merge: a credited book repeats the last hourly snapshot\" names the market, at and uploader): check it, withhold the uploader's upload feature if it is a replay",
      metric: mergeCount(METRIC.mergeSnapshotReplay),
      threshold: 0,
    });
    this.alarm('http-5xx', {
      description: `More than ${SERVER_ERROR_LIMIT} server errors in five minutes`,
      metric: props.serverErrors,
      threshold: SERVER_ERROR_LIMIT,
    });
  }

  /** The alarm actions' topic policy allows CloudWatch of this account only (see the constructor). */
  private alarm(id: string, props: { description: string; metric: IMetric; threshold: number }): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: props.description,
      metric: props.metric,
      threshold: props.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
