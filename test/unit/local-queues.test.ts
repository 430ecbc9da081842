import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalQueues } from '../../lib/local/queues';
import type { QueueSpec } from '../../lib/topology';
import { ManualClock } from '../../shared/clock';

const fifo = (name: string): QueueSpec => ({ name, fifo: true, consumer: 'merge', batchSize: 2, maxReceives: 3, visibilityTimeoutSeconds: 30 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('local queues (SQS contract)', () => {
  it('delivers one batch at a time per message group, in order, while other groups run in parallel', async () => {
    const clock = new ManualClock(1_000);
    const log: string[] = [];
    let concurrentA = 0;
    let maxConcurrentA = 0;
    let overlapAB = false;
    let runningB = 0;
    const queues = new LocalQueues([fifo('merge-a'), fifo('merge-b')], clock, (spec) => async (event: SQSEvent) => {
      if (spec.name === 'merge-a') {
        concurrentA++;
        maxConcurrentA = Math.max(maxConcurrentA, concurrentA);
        if (runningB > 0) overlapAB = true;
        await sleep(20);
        log.push(...event.Records.map((r) => r.body));
        concurrentA--;
      } else {
        runningB++;
        await sleep(30);
        runningB--;
      }
    });
    await queues.send('merge-a', ['1', '2', '3', '4', '5'].map((body) => ({ body, groupId: 'a', dedupId: body })));
    await queues.send('merge-b', ['x', 'y'].map((body) => ({ body, groupId: 'b', dedupId: body })));
    await queues.drain();
    expect(log).toEqual(['1', '2', '3', '4', '5']);
    expect(maxConcurrentA).toBe(1);
    expect(overlapAB).toBe(true);
  });

  it('retries a failed batch and moves it to the dead-letter store after three receives', async () => {
    const clock = new ManualClock(1_000);
    const receives: number[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      receives.push(Number(event.Records[0].attributes.ApproximateReceiveCount));
      throw new Error('boom');
    });
    await queues.send('merge-a', [{ body: 'bad', groupId: 'a', dedupId: 'bad' }]);
    await queues.drain();
    expect(receives).toEqual([1, 2, 3]);
    expect(queues.deadLetters).toEqual([{ queue: 'merge-a', body: 'bad', receives: 3, error: 'boom' }]);
    expect(queues.depth('merge-a')).toBe(0);
  });

  it('redelivers only the items a batch reports as failed', async () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => r.body));
      const second = event.Records.find((r) => r.body === '2' && r.attributes.ApproximateReceiveCount === '1');
      return { batchItemFailures: second ? [{ itemIdentifier: second.messageId }] : [] };
    });
    await queues.send('merge-a', ['1', '2'].map((body) => ({ body, groupId: 'a', dedupId: body })));
    await queues.drain();
    expect(seen).toEqual(['1', '2', '2']);
    expect(queues.deadLetters).toEqual([]);
  });

  it('drops a FIFO message whose deduplication id was seen within five minutes', async () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => r.body));
    });
    await queues.send('merge-a', [{ body: 'one', groupId: 'a', dedupId: 'same' }, { body: 'two', groupId: 'a', dedupId: 'same' }]);
    await queues.drain();
    expect(seen).toEqual(['one']);
  });

  it('holds a delayed standard-queue message until the service clock reaches its delay', async () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const spec: QueueSpec = { name: 'push', fifo: false, consumer: 'push', batchSize: 10, maxReceives: 3, visibilityTimeoutSeconds: 30 };
    const queues = new LocalQueues([spec], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => r.body));
    });
    await queues.send('push', [{ body: 'later', delaySeconds: 30 }, { body: 'now' }]);
    await queues.drain();
    expect(seen).toEqual(['now']);
    clock.advance(30_000);
    queues.poke();
    await queues.drain();
    expect(seen).toEqual(['now', 'later']);
  });
});
