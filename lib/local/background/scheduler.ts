/**
 * EventBridge `rate(N minutes)` schedules on the service clock. A schedule is due once its period index
 * (floor(now / period)) passed the one it last ran in; it runs once however many periods were skipped,
 * because the jobs catch up on their own (sealing writes every pending period). A run that throws is handed
 * to `onError` with its event, so the runtime can land it where AWS would: the schedule's failed-runs queue,
 * as the function's on-failure destination record ({@link failedRunRecord}).
 */

import type { ScheduledEvent } from 'aws-lambda';
import type { Clock } from '../../../shared/clock';
import { redact } from '../../../shared/log-redact';
import type { ScheduleSpec } from '../../../shared/topology';
import { OneAtATime } from './one-at-a-time';

export type ScheduledConsumer = (event: ScheduledEvent) => Promise<unknown>;

/** What Lambda sends an asynchronous invocation's on-failure destination when the function throws. */
export interface FailedRunRecord {
  version: '1.0';
  timestamp: string;
  requestContext: { requestId: string; functionArn: string; condition: 'RetriesExhausted'; approximateInvokeCount: number };
  requestPayload: ScheduledEvent;
  responseContext: { statusCode: 200; executedVersion: '$LATEST'; functionError: 'Unhandled' };
  responsePayload: { errorType: string; errorMessage: string };
}

/**
 * The on-failure destination record of a scheduled run that threw, as Lambda writes it for a function whose
 * asynchronous invocations are not retried (lib/constructs/schedules.ts: retryAttempts 0). The message is
 * redacted, as every log line is.
 */
export function failedRunRecord(spec: ScheduleSpec, event: ScheduledEvent, err: unknown, now: number): FailedRunRecord {
  const error = err instanceof Error ? err : new Error(String(err));
  return {
    version: '1.0',
    timestamp: new Date(now).toISOString(),
    requestContext: {
      requestId: event.id,
      functionArn: `arn:aws:lambda:${event.region}:${event.account}:function:${spec.function}:$LATEST`,
      condition: 'RetriesExhausted',
      approximateInvokeCount: 1,
    },
    requestPayload: event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: error.name, errorMessage: redact(error.message) },
  };
}

export class LocalScheduler {
  private readonly lastPeriod = new Map<string, number>();
  private readonly runs = new OneAtATime<string[]>();

  constructor(
    private readonly specs: readonly ScheduleSpec[],
    private readonly clock: Clock,
    private readonly consumerOf: (spec: ScheduleSpec) => ScheduledConsumer,
    private readonly onError: (spec: ScheduleSpec, err: unknown, event: ScheduledEvent) => unknown,
  ) {
    const now = clock.now();
    for (const s of specs) this.lastPeriod.set(s.name, periodOf(now, s));
  }

  /** Names of schedules due at the current clock. */
  due(): string[] {
    const now = this.clock.now();
    return this.specs.filter((s) => periodOf(now, s) > (this.lastPeriod.get(s.name) ?? -1)).map((s) => s.name);
  }

  get busy(): boolean {
    return this.runs.busy;
  }

  /** Runs every due schedule once (in manifest order) and returns their names. */
  async runDue(): Promise<string[]> {
    return this.runs.run(() => this.runDueNow());
  }

  /** Runs one schedule now and counts it as run for the current period (the demo's snapshot before `ready`). */
  async runNow(name: string): Promise<void> {
    const spec = this.specs.find((s) => s.name === name);
    if (!spec) throw new Error(`no schedule ${name}`);
    await this.runs.run(async () => {
      const now = this.clock.now();
      this.lastPeriod.set(name, periodOf(now, spec));
      await this.consumerOf(spec)(scheduledEvent(spec, now));
      return [name];
    });
  }

  private async runDueNow(): Promise<string[]> {
    const now = this.clock.now();
    const ran: string[] = [];
    for (const s of this.specs) {
      const period = periodOf(now, s);
      if (period <= (this.lastPeriod.get(s.name) ?? -1)) continue;
      this.lastPeriod.set(s.name, period);
      ran.push(s.name);
      const event = scheduledEvent(s, now);
      try {
        await this.consumerOf(s)(event);
      } catch (err) {
        await this.onError(s, err, event);
      }
    }
    return ran;
  }
}

const periodOf = (now: number, s: ScheduleSpec): number => Math.floor(now / (s.everyMinutes * 60_000));

function scheduledEvent(s: ScheduleSpec, now: number): ScheduledEvent {
  return {
    version: '0',
    id: `${s.name}-${now}`,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date(now).toISOString(),
    region: 'local',
    resources: [`arn:aws:events:local:000000000000:rule/${s.name}`],
    detail: {},
  };
}
