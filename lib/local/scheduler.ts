/**
 * EventBridge `rate(N minutes)` schedules on the service clock. A schedule is due once its period index
 * (floor(now / period)) passed the one it last ran in; it runs once however many periods were skipped,
 * because the jobs catch up on their own (sealing writes every pending period).
 */
import type { ScheduledEvent } from 'aws-lambda';
import type { Clock } from '../../shared/clock';
import type { ScheduleSpec } from '../../shared/topology';

export type ScheduledConsumer = (event: ScheduledEvent) => Promise<unknown>;

export class LocalScheduler {
  private readonly lastPeriod = new Map<string, number>();
  private running: Promise<string[]> | null = null;

  constructor(
    private readonly specs: readonly ScheduleSpec[],
    private readonly clock: Clock,
    private readonly consumerOf: (spec: ScheduleSpec) => ScheduledConsumer,
    private readonly onError: (name: string, err: unknown) => void,
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
    return this.running !== null;
  }

  /** Runs every due schedule once (in manifest order) and returns their names. */
  async runDue(): Promise<string[]> {
    while (this.running) await this.running;
    this.running = this.runDueNow();
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  /** Runs one schedule now and counts it as run for the current period (the demo's snapshot before `ready`). */
  async runNow(name: string): Promise<void> {
    const spec = this.specs.find((s) => s.name === name);
    if (!spec) throw new Error(`no schedule ${name}`);
    while (this.running) await this.running;
    const now = this.clock.now();
    this.lastPeriod.set(name, periodOf(now, spec));
    this.running = this.consumerOf(spec)(scheduledEvent(spec, now)).then(() => [name]);
    try {
      await this.running;
    } finally {
      this.running = null;
    }
  }

  private async runDueNow(): Promise<string[]> {
    const now = this.clock.now();
    const ran: string[] = [];
    for (const s of this.specs) {
      const period = periodOf(now, s);
      if (period <= (this.lastPeriod.get(s.name) ?? -1)) continue;
      this.lastPeriod.set(s.name, period);
      ran.push(s.name);
      try {
        await this.consumerOf(s)(scheduledEvent(s, now));
      } catch (err) {
        this.onError(s.name, err);
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
