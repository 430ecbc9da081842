import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { FunctionName, ScheduleSpec } from '../../shared/topology';
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

/**
 * One EventBridge rule per manifest schedule, `rate(N minutes)`, targeting its function. EventBridge invokes
 * asynchronously, so a run that fails in the function is Lambda's to retry, by default twice over up to six
 * hours, on top of the next runs: each scheduled function's asynchronous invocations are retried never and
 * dropped after one period instead (the next run does the work).
 */
export class Schedules extends Construct {
  readonly rules: Rule[];

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.rules = props.specs.map((spec) => {
      const fn = props.functionOf(spec.function);
      const period = Duration.minutes(spec.everyMinutes);
      fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: period });
      return new Rule(this, spec.name, {
        description: `${spec.name} every ${spec.everyMinutes} min`,
        schedule: Schedule.rate(period),
        // A retry older than one period would overlap the next run.
        targets: [new LambdaFunction(fn, { retryAttempts: RETRY_ATTEMPTS, maxEventAge: period })],
      });
    });
  }
}
