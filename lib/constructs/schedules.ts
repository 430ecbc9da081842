import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { FunctionName, ScheduleSpec } from '../../shared/topology';
import type { ServiceFunction } from './service-function';

/** A failed scheduled run is retried a little; the next period's run catches up on what it missed. */
const RETRY_ATTEMPTS = 2;

/** Props of {@link Schedules}. */
export interface SchedulesProps {
  specs: readonly ScheduleSpec[];
  functionOf: (name: FunctionName) => ServiceFunction;
}

/** One EventBridge rule per manifest schedule, `rate(N minutes)`, targeting its function. */
export class Schedules extends Construct {
  readonly rules: Rule[];

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.rules = props.specs.map(
      (spec) =>
        new Rule(this, spec.name, {
          description: `${spec.name} every ${spec.everyMinutes} min`,
          schedule: Schedule.rate(Duration.minutes(spec.everyMinutes)),
          // A retry older than one period would overlap the next run.
          targets: [new LambdaFunction(props.functionOf(spec.function), { retryAttempts: RETRY_ATTEMPTS, maxEventAge: Duration.minutes(spec.everyMinutes) })],
        }),
    );
  }
}
