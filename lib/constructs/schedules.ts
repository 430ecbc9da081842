import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { FAILED_RUNS_RETENTION_DAYS, type FunctionName, type ScheduleSpec } from '../../shared/topology';
import { DEAD_LETTER_PLACE } from './queues';
import type { ServiceFunction } from './service-function';

/**
 * EventBridge retries only a delivery it could not make (throttling, an unavailable service), a little; the
 * next period's run catches up on what a failed one missed.
 */
const RETRY_ATTEMPTS = 2;

/** Props of {@link Schedules}. */
export interface SchedulesProps {
  specs: readonly ScheduleSpec[];
  functionOf: (name: FunctionName) => ServiceFunction;
}

/** One schedule's rule and the queue its failed runs land in. */
export interface ScheduledJob {
  spec: ScheduleSpec;
  rule: Rule;
  failedRuns: Queue;
}

/**
 * One EventBridge rule per manifest schedule, `rate(N minutes)`, targeting its function. EventBridge invokes
 * asynchronously, so a run that fails in the function is Lambda's to retry, by default twice over up to six
 * hours, on top of the next runs: each scheduled function's asynchronous invocations are retried never and
 * dropped after one period instead (the next run does the work).
 *
 * Nothing fails silently (issue 26 point 3): each schedule has a queue of failed runs, the rule target's
 * dead-letter queue (an invocation EventBridge could not make) and the function's on-failure destination (a
 * run that threw or timed out) at once, which the alarms watch (lib/constructs/alarms.ts).
 */
export class Schedules extends Construct {
  readonly jobs: ScheduledJob[];

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.jobs = props.specs.map((spec) => {
      const fn = props.functionOf(spec.function);
      const period = Duration.minutes(spec.everyMinutes);
      const failedRuns = new Queue(this, `${spec.name}FailedRuns`, {
        retentionPeriod: Duration.days(FAILED_RUNS_RETENTION_DAYS),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      NagSuppressions.addResourceSuppressions(failedRuns, [
        {
          id: 'AwsSolutions-SQS3',
          reason:
            'A failed-runs queue is itself a dead-letter place (the EventBridge target’s dead letters and the function’s on-failure destination): nothing consumes it, an alarm fires while it holds a message.',
        },
        { id: 'Serverless-SQSRedrivePolicy', reason: DEAD_LETTER_PLACE },
      ]);
      fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: period, onFailure: new SqsDestination(failedRuns) });
      const rule = new Rule(this, spec.name, {
        description: `${spec.name} every ${spec.everyMinutes} min`,
        schedule: Schedule.rate(period),
        // A retry older than one period would overlap the next run.
        targets: [new LambdaFunction(fn, { retryAttempts: RETRY_ATTEMPTS, maxEventAge: period, deadLetterQueue: failedRuns })],
      });
      return { spec, rule, failedRuns };
    });
  }
}
