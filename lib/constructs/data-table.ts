import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { FilterPattern } from '../../shared/store/stream-filter';
import { STREAM_FAILED_QUEUE } from '../../shared/topology';
import type { StageConfig } from '../stages';
import { DEAD_LETTER_PLACE } from './queues';
import type { ServiceFunction } from './service-function';

/** Retries of a failing stream batch (halved each time by bisection) before its records are skipped. */
const STREAM_RETRY_ATTEMPTS = 5;

/** Live messages older than this are worthless to clients, who catch up through `hello`. */
const STREAM_MAX_RECORD_AGE = Duration.hours(1);

/** Props of a {@link DataTable}. */
export interface DataTableProps {
  stage: StageConfig;
}

/**
 * The single table: `pk`/`sk` strings, on demand, a stream of new and old images for live fan-out, TTL
 * on `ttl`, point-in-time recovery where the stage asks for it.
 */
export class DataTable extends Table {
  constructor(scope: Construct, id: string, props: DataTableProps) {
    const { stage } = props;
    super(scope, id, {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: 'ttl',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: stage.pointInTimeRecovery },
      deletionProtection: stage.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: stage.removalPolicy,
    });
    if (!stage.pointInTimeRecovery) {
      NagSuppressions.addResourceSuppressions(this, [
        { id: 'AwsSolutions-DDB3', reason: `The ${stage.stage} stage holds disposable test data; only production keeps point-in-time recovery.` },
      ]);
    }
  }

  /**
   * Feeds the table's stream to its consumer: newest records first, poison batches bisected, then skipped;
   * only records passing one of `filters` invoke it. A skipped batch is not lost silently: its shard and
   * sequence numbers go to the returned on-failure queue (issue 26 point 3), which an alarm watches.
   */
  streamTo(consumer: ServiceFunction, batchSize: number, filters: readonly FilterPattern[]): Queue {
    const failed = new Queue(this, 'StreamFailed', {
      retentionPeriod: Duration.days(STREAM_FAILED_QUEUE.retentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    NagSuppressions.addResourceSuppressions(failed, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'The stream’s on-failure queue is itself a dead-letter place (the skipped batches’ shard and sequence numbers): nothing consumes it, an alarm fires while it holds a message.',
      },
      { id: 'Serverless-SQSRedrivePolicy', reason: DEAD_LETTER_PLACE },
    ]);
    consumer.addEventSource(
      new DynamoEventSource(this, {
        startingPosition: StartingPosition.LATEST,
        batchSize,
        bisectBatchOnError: true,
        retryAttempts: STREAM_RETRY_ATTEMPTS,
        maxRecordAge: STREAM_MAX_RECORD_AGE,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(failed),
        filters: filters.map((f) => FilterCriteria.filter(f as Record<string, unknown>)),
      }),
    );
    NagSuppressions.addResourceSuppressions(
      consumer.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: 'dynamodb:ListStreams has no resource-level permissions; the stream read actions themselves are scoped to this table’s stream.',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
    return failed;
  }
}
