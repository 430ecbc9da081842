/**
 * What runs without a request: the queues' deliveries, the table stream's consumer and the schedules, and
 * the sweeper that deletes expired items as TTL does. Here they are built from the manifest
 * (shared/topology.ts), run on timers in the background, and driven to rest on demand (`settle`, `drain`,
 * `tick`: the control API's and the tests' way to wait for the service instead of sleeping).
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { type Clock, ManualClock } from '../../../shared/clock';
import type { Log } from '../../../shared/log';
import { CHANGE_STREAM_FILTERS } from '../../../shared/store/change-stream';
import { isDependencyFailure } from '../../../shared/store/dependency-failure';
import {
  FAILED_RUNS_RETENTION_DAYS,
  type FunctionName,
  failedRunsQueueName,
  MERGE_REJECTED_QUEUE,
  QUEUES,
  SCHEDULES,
  STREAM_CONSUMER,
} from '../../../shared/topology';
import { sweepExpired } from '../engines/storage';
import { LocalQueues, type SqsConsumer } from './queues';
import { ReplayClock } from './replay-clock';
import { failedRunRecord, LocalScheduler } from './scheduler';
import { StreamPoller } from './stream-poller';

/** How often the stream is polled in the background (Lambda polls a DynamoDB stream shard four times a second). */
const STREAM_POLL_MS = 250;

type Invoke = (fn: FunctionName, event: unknown) => Promise<unknown>;

/** Something with work in flight the background waits for before it calls the service idle (the live gateway). */
export interface Busy {
  readonly busy: boolean;
  idle(): Promise<void>;
}

export interface BackgroundParts {
  clock: Clock;
  log: Log;
  invoke: Invoke;
  /** `seal: "fail"` of the faults: every scheduled seal run throws while it is on. */
  sealFails: () => boolean;
  /** What delivers the stream's changes to its consumer: the table's stream (engines) or the memory change feed. */
  changes: ChangeSource;
  /** Deletes what TTL has expired at `now`; answers how many (the memory fakes read expired items as absent: none). */
  sweep: (now: number) => Promise<number>;
}

/**
 * The stream consumer's feed, as the background drives it: the engines' StreamPoller, or the memory change feed
 * (lib/local/memory/change-source.ts). `pollOnce` delivers what is waiting and answers how many changes it delivered.
 */
export interface ChangeSource {
  init(): Promise<void>;
  pollOnce(): Promise<number>;
  readonly busy: boolean;
  idle(): Promise<void>;
}

/** What a back end gives the background: its change feed and its TTL sweeper. */
export type ChangeParts = Pick<BackgroundParts, 'changes' | 'sweep'>;

/** The engines' parts of the background: DynamoDB Local's stream, polled, and the TTL sweeper, both past the local AWS edge (the `table` fault leaves them alone). */
export function engineBackground(o: {
  ddb: DynamoDBClient;
  ddbEndpoint: string;
  tableName: string;
  /** Whether the data is kept nowhere (`:memory:`): the stream is then read from its start. */
  memory: boolean;
  invoke: Invoke;
  log: Log;
}): ChangeParts {
  const poller = new StreamPoller(
    o.ddbEndpoint,
    o.ddb,
    o.tableName,
    (ev) => o.invoke(STREAM_CONSUMER.function, ev),
    STREAM_CONSUMER.batchSize,
    CHANGE_STREAM_FILTERS,
    (err) => o.log('error', 'stream consumer failed', { error: err instanceof Error ? err.stack : String(err) }),
  );
  const doc = DynamoDBDocumentClient.from(o.ddb);
  return {
    changes: {
      init: () => poller.init(o.memory),
      pollOnce: () => poller.pollOnce(),
      get busy() {
        return poller.busy;
      },
      idle: () => poller.idle(),
    },
    sweep: (now) => sweepExpired(doc, o.tableName, now),
  };
}

/** The manifest's queues, and the unconsumed ones: the rejected merges, and where failed scheduled runs land (issue 26 point 3). */
export function serviceQueues(clock: Clock, consume: (fn: FunctionName, event: SQSEvent) => ReturnType<SqsConsumer>): LocalQueues {
  const failedRuns = SCHEDULES.map((s) => ({ name: failedRunsQueueName(s.name), fifo: false, retentionDays: FAILED_RUNS_RETENTION_DAYS }));
  return new LocalQueues(QUEUES, clock, (spec) => (event) => consume(spec.consumer, event), [MERGE_REJECTED_QUEUE, ...failedRuns]);
}

export class Background {
  readonly scheduler: LocalScheduler;
  readonly poller: ChangeSource;
  private timers: NodeJS.Timeout[] = [];
  private settling: Promise<void> | null = null;
  /** Set by `pauseStreamPoll` (benchmarks only): the background poll skips its turns. */
  private streamPollPaused = false;

  constructor(
    private readonly parts: BackgroundParts,
    private readonly queues: LocalQueues,
    private readonly live: Busy,
  ) {
    const { clock, log, invoke } = parts;
    this.scheduler = new LocalScheduler(
      SCHEDULES,
      clock,
      (s) => (ev) =>
        s.name === 'seal' && parts.sealFails()
          ? Promise.reject(new Error('seal failed: the local seal fault is on (POST /_local/faults {"seal": "none"} turns it off)'))
          : invoke(s.function, ev),
      async (spec, err, event) => {
        // A run that met an outage is retried by the next period's run: a warning, not an error.
        if (isDependencyFailure(err)) log('warn', `schedule ${spec.name} waits for a dependency`, { error: err instanceof Error ? err.message : String(err) });
        else log('error', `schedule ${spec.name} failed`, { error: err instanceof Error ? err.stack : String(err) });
        // As in AWS, every failed run lands in its failed-runs queue (the function's on-failure destination).
        await queues.send(failedRunsQueueName(spec.name), [{ body: JSON.stringify(failedRunRecord(spec, event, err, clock.now())) }]);
      },
    );
    this.poller = parts.changes;
  }

  /** Finds the table's stream (from its start when nothing is kept, else from its end). */
  init(): Promise<void> {
    return this.poller.init();
  }

  start(): void {
    const clock = this.parts.clock;
    // The stream is always polled (the live `hello` rides on it), four times a second as Lambda's event source
    // mapping polls a shard: every poll costs DynamoDB Local a DescribeStream and a GetRecords per shard
    // (~8 ms of its CPU; at the 50 ms this used, an idle runtime kept a sixth of a core busy). Queues deliver
    // as soon as a message is due (SQS long polling); schedules run by themselves only on the system clock.
    this.timers.push(
      setInterval(() => {
        if (!this.poller.busy && !this.settling && !this.streamPollPaused) this.poller.pollOnce().catch(() => undefined);
      }, STREAM_POLL_MS),
      setInterval(() => this.queues.poke(), 50),
    );
    if (!(clock instanceof ManualClock)) {
      // A replaying clock (the demo's back-fill) runs schedules only when its driver ticks.
      const driven = () => clock instanceof ReplayClock && clock.replaying;
      this.timers.push(setInterval(() => driven() || void this.scheduler.runDue(), 1000));
      this.timers.push(setInterval(() => driven() || void this.sweep().catch(() => undefined), 60_000));
    }
    for (const t of this.timers) t.unref();
  }

  /** Stops the timers; work in flight goes on (`stopped` waits for it). */
  stop(): void {
    for (const t of this.timers) clearInterval(t);
  }

  /** Waits for the queues' deliveries and a stream batch in flight, which would otherwise meet stopped engines. */
  async stopped(): Promise<void> {
    await this.queues.settled();
    await this.poller.idle();
  }

  private sweep(): Promise<number> {
    return this.parts.sweep(this.parts.clock.now());
  }

  /**
   * Pauses the background stream poll until `resumeStreamPoll` (a poll in flight is waited for). For the
   * bench: on AWS the stream's consumers run in other Lambdas, so a timed merge must not share this process
   * with them. Records written meanwhile stay in the stream and are delivered by the next poll; `settle` and
   * `drain` still poll. Nothing of the deployed stack has such a pause.
   */
  async pauseStreamPoll(): Promise<void> {
    this.streamPollPaused = true;
    await this.poller.idle();
  }

  /** Resumes the background stream poll paused by `pauseStreamPoll`. */
  resumeStreamPoll(): void {
    this.streamPollPaused = false;
  }

  /** Waits until queues, the stream and sockets are idle, then runs due schedules, until nothing is left. */
  async settle(): Promise<void> {
    while (this.settling) await this.settling;
    this.settling = (async () => {
      for (;;) {
        await this.quiesce();
        const ran = await this.scheduler.runDue();
        if (ran.length === 0) {
          await this.quiesce();
          await this.sweep();
          if (!this.queues.busy && !this.live.busy) return;
        }
      }
    })();
    try {
      await this.settling;
    } finally {
      this.settling = null;
    }
  }

  /** Waits until queues, the stream and sockets are idle, running no schedule (the demo replays a week, then schedules catch up). */
  async quiesce(): Promise<void> {
    for (;;) {
      await this.queues.drain();
      await this.live.idle();
      const records = await this.poller.pollOnce();
      if (records === 0 && !this.queues.busy && !this.live.busy) return;
    }
  }

  /** Runs the named schedules now (each counted as run for its period), then drains. */
  async runSchedules(names: string[]): Promise<void> {
    await this.quiesce();
    for (const name of names) await this.scheduler.runNow(name);
    await this.quiesce();
  }

  /** Runs every schedule due at the service clock, then settles. */
  async tick(): Promise<string[]> {
    await this.quiesce();
    const ran = await this.scheduler.runDue();
    await this.settle();
    return ran;
  }
}
