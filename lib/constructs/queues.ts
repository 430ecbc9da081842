import { Duration, Names } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { MERGE_REJECTED_QUEUE, type QueueSpec } from '../../shared/topology';
import type { ServiceFunction } from './service-function';

/** Dead letters wait the SQS maximum so an operator can inspect and redrive them after a weekend. */
const DEAD_LETTER_RETENTION = Duration.days(14);

/** Why a queue that is itself where failures end has no redrive policy (cdk-nag Serverless-SQSRedrivePolicy). */
export const DEAD_LETTER_PLACE =
  'This queue is itself where failed messages end: nothing consumes it, an alarm fires while it holds a message, and an operator reads or redrives it (docs/runbook.md).';

/**
 * Why an SQS event source mapping has no on-failure destination (cdk-nag Serverless-LambdaEventSourceMappingDestination):
 * Lambda takes none for SQS sources.
 */
const SQS_MAPPING_FAILURES =
  'Lambda takes no on-failure destination for an SQS event source: the queue’s redrive policy moves a message received maxReceives times to its dead-letter queue, which an alarm watches.';

/** Props of a {@link ManifestQueue}. */
export interface ManifestQueueProps {
  spec: QueueSpec;
}

/**
 * One queue of the manifest with its own dead-letter queue (FIFO for a FIFO queue, as SQS requires).
 * Deduplication is explicit: producers set `MessageDeduplicationId` from the book's identity, because two
 * different books can have identical bodies.
 */
export class ManifestQueue extends Construct {
  readonly spec: QueueSpec;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ManifestQueueProps) {
    super(scope, id);
    const { spec } = props;
    this.spec = spec;
    const fifo = spec.fifo ? { fifo: true, contentBasedDeduplication: false } : {};
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      ...fifo,
      retentionPeriod: DEAD_LETTER_RETENTION,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    NagSuppressions.addResourceSuppressions(this.deadLetterQueue, [{ id: 'Serverless-SQSRedrivePolicy', reason: DEAD_LETTER_PLACE }]);
    this.queue = new Queue(this, 'Queue', {
      ...fifo,
      visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
      ...(spec.retentionDays ? { retentionPeriod: Duration.days(spec.retentionDays) } : {}),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: spec.maxReceives },
    });
  }

  /**
   * Delivers the queue to its consumer in manifest-sized batches, at most the manifest's `maxConcurrency` at
   * once; failed messages are retried one by one.
   */
  feed(consumer: ServiceFunction): void {
    if (consumer.spec.timeoutSeconds > this.spec.visibilityTimeoutSeconds) {
      throw new Error(`queue ${this.spec.name}: visibility timeout is shorter than ${consumer.spec.name}'s timeout`);
    }
    const source = new SqsEventSource(this.queue, { batchSize: this.spec.batchSize, reportBatchItemFailures: true, maxConcurrency: this.spec.maxConcurrency });
    consumer.addEventSource(source);
    // The mapping SqsEventSource adds, under the id it gives it.
    const mapping = consumer.node.findChild(`SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`);
    NagSuppressions.addResourceSuppressions(mapping, [{ id: 'Serverless-LambdaEventSourceMappingDestination', reason: SQS_MAPPING_FAILURES }], true);
  }
}

/** Props of {@link MergeQueues}. */
export interface MergeQueuesProps {
  specs: readonly QueueSpec[];
}

/**
 * One FIFO queue per market (MessageGroupId = market), so each market merges one batch at a time, and the
 * rejected queue where merges that failed for their own data wait for an operator (docs/failure-model.md).
 */
export class MergeQueues extends Construct {
  readonly queues: ManifestQueue[];
  readonly rejected: Queue;

  constructor(scope: Construct, id: string, props: MergeQueuesProps) {
    super(scope, id);
    this.queues = props.specs.map((spec) => {
      if (!spec.fifo) throw new Error(`merge queue ${spec.name} must be FIFO`);
      return new ManifestQueue(this, spec.name, { spec });
    });
    this.rejected = new Queue(this, 'Rejected', {
      fifo: MERGE_REJECTED_QUEUE.fifo,
      contentBasedDeduplication: false,
      retentionPeriod: Duration.days(MERGE_REJECTED_QUEUE.retentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    NagSuppressions.addResourceSuppressions(this.rejected, [
      { id: 'AwsSolutions-SQS3', reason: 'The rejected queue is itself a dead-letter place: nothing consumes it, an alarm fires while it holds a message.' },
      { id: 'Serverless-SQSRedrivePolicy', reason: DEAD_LETTER_PLACE },
    ]);
  }
}
