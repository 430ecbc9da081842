import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalQueues } from '../../lib/local/background/queues';
import { ManualClock } from '../../shared/clock';
import type { QueueSpec } from '../../shared/topology';

const fifo = (name: string): QueueSpec => ({ name, fifo: true, consumer: 'merge', batchSize: 2, maxReceives: 3, visibilityTimeoutSeconds: 30 });
/** Yields `n` turns of the event loop (no wall-clock time): room for a queue to start whatever it would run alongside. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('local queues (SQS contract on the service clock)', () => {
  it('delivers one batch at a time per message group, in order, while other groups run in parallel', async () => {
    const clock = new ManualClock(1_000);
    const log: string[] = [];
    let concurrentA = 0;
    let maxConcurrentA = 0;
    let overlapAB = false;
    let runningB = 0;
    let sawB: () => void = () => {};
    const aSawB = new Promise<void>((r) => {
      sawB = r;
    });
    const queues = new LocalQueues([fifo('merge-a'), fifo('merge-b')], clock, (spec) => async (event: SQSEvent) => {
      if (spec.name === 'merge-a') {
        concurrentA++;
        maxConcurrentA = Math.max(maxConcurrentA, concurrentA);
        await turns(3);
        if (runningB > 0) {
          overlapAB = true;
          sawB();
        }
        log.push(...event.Records.map((r) => r.body));
        concurrentA--;
      } else {
        runningB++;
        // Stays in flight until a batch of group a has seen it running (or long after a would have).
        await Promise.race([aSawB, turns(200)]);
        runningB--;
      }
    });
    await queues.send(
      'merge-a',
      ['1', '2', '3', '4', '5'].map((body) => ({ body, groupId: 'a', dedupId: body })),
    );
    await queues.send(
      'merge-b',
      ['x', 'y'].map((body) => ({ body, groupId: 'b', dedupId: body })),
    );
    await queues.drain();
    expect(log).toEqual(['1', '2', '3', '4', '5']);
    expect(maxConcurrentA).toBe(1);
    expect(overlapAB).toBe(true);
  });

  it('receives a crashed batch again only once its visibility timeout passed on the service clock, and dead-letters it after maxReceives', async () => {
    const clock = new ManualClock(1_000);
    const receives: number[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      receives.push(Number(event.Records[0].attributes.ApproximateReceiveCount));
      throw new Error('boom');
    });
    await queues.send('merge-a', [{ body: 'bad', groupId: 'a', dedupId: 'bad' }]);
    await queues.drain();
    expect(receives).toEqual([1]);
    clock.advance(29_999);
    await queues.drain();
    expect(receives).toEqual([1]);
    clock.advance(1);
    await queues.drain();
    expect(receives).toEqual([1, 2]);
    clock.advance(30_000);
    await queues.drain();
    expect(receives).toEqual([1, 2, 3]);
    expect(queues.deadLetters).toEqual([{ queue: 'merge-a', body: 'bad', receives: 3, error: 'boom' }]);
    expect(queues.depth('merge-a')).toBe(0);
    expect(queues.depth('merge-a-dead-letters')).toBe(1);
  });

  it('holds a failed message and its group for as long as the consumer set its visibility', async () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => `${r.body}@${r.attributes.ApproximateReceiveCount}`));
      const head = event.Records[0];
      if (head.body !== 'first') return;
      const receives = Number(head.attributes.ApproximateReceiveCount);
      if (receives >= 3) return;
      await queues.changeVisibility(
        head.eventSourceARN,
        event.Records.map((r) => r.receiptHandle),
        receives === 1 ? 0 : 10,
      );
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await queues.send(
      'merge-a',
      ['first', 'second'].map((body) => ({ body, groupId: 'a', dedupId: body })),
    );
    await queues.drain();
    expect(seen).toEqual(['first@1', 'second@1', 'first@2', 'second@2']);
    clock.advance(9_999);
    await queues.drain();
    expect(seen).toHaveLength(4);
    clock.advance(1);
    await queues.drain();
    expect(seen).toEqual(['first@1', 'second@1', 'first@2', 'second@2', 'first@3', 'second@3']);
    expect(queues.depth('merge-a')).toBe(0);
  });

  it('receives again only the items a batch reports as failed', async () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => r.body));
      const second = event.Records.find((r) => r.body === '2' && r.attributes.ApproximateReceiveCount === '1');
      return { batchItemFailures: second ? [{ itemIdentifier: second.messageId }] : [] };
    });
    await queues.send(
      'merge-a',
      ['1', '2'].map((body) => ({ body, groupId: 'a', dedupId: body })),
    );
    await queues.drain();
    expect(seen).toEqual(['1', '2']);
    clock.advance(30_000);
    await queues.drain();
    expect(seen).toEqual(['1', '2', '2']);
    expect(queues.deadLetters).toEqual([]);
  });

  it('drops a FIFO message whose deduplication id was seen within five minutes of service time', async () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => r.body));
    });
    await queues.send('merge-a', [
      { body: 'one', groupId: 'a', dedupId: 'same' },
      { body: 'two', groupId: 'a', dedupId: 'same' },
    ]);
    await queues.drain();
    clock.advance(5 * 60_000);
    await queues.send('merge-a', [{ body: 'three', groupId: 'a', dedupId: 'same' }]);
    await queues.drain();
    expect(seen).toEqual(['one', 'three']);
  });

  it('refuses a FIFO message without a deduplication id as SQS does (no content-based deduplication), sending the rest of the batch', async () => {
    // Issue 26 point 5: the stack's FIFO queues have ContentBasedDeduplication false (test/infra/stack.test.ts),
    // so SQS refuses such a send (InvalidParameterValue); the local queues used to deduplicate by body instead.
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    const queues = new LocalQueues([fifo('merge-a')], clock, () => async (event: SQSEvent) => {
      seen.push(...event.Records.map((r) => r.body));
    });
    queues.autoRun = false;
    await expect(queues.send('merge-a', [{ body: 'same', groupId: 'a' }])).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('MessageDeduplicationId'),
    });
    await expect(
      queues.send('merge-a', [
        { body: 'kept', groupId: 'a', dedupId: 'kept' },
        { body: 'same', groupId: 'a' },
      ]),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(queues.send('merge-a', [{ body: 'no group', dedupId: 'g' }])).rejects.toMatchObject({
      name: 'MissingParameter',
      message: expect.stringContaining('MessageGroupId'),
    });
    await queues.drain();
    expect(seen).toEqual(['kept']);
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

  it('lets a queue nobody consumes be received in group order and deleted, with message attributes', async () => {
    const clock = new ManualClock(1_000);
    const queues = new LocalQueues([], clock, () => async () => undefined, [{ name: 'held', fifo: true }]);
    await queues.send('held', [
      { body: 'a1', groupId: 'a', dedupId: 'a1', attributes: { reason: 'data' } },
      { body: 'b1', groupId: 'b', dedupId: 'b1' },
      { body: 'a2', groupId: 'a', dedupId: 'a2' },
    ]);
    const first = await queues.receive('held', 10, 60);
    expect(first.map((m) => [m.body, m.groupId, m.attributes])).toEqual([
      ['a1', 'a', { reason: 'data' }],
      ['a2', 'a', {}],
    ]);
    // Group a is hidden while its messages are received; b is next.
    expect((await queues.receive('held', 10, 60)).map((m) => m.body)).toEqual(['b1']);
    expect(await queues.receive('held', 10, 60)).toEqual([]);
    await queues.delete('held', [first[0].receiptHandle]);
    clock.advance(60_000);
    expect((await queues.receive('held', 10, 60)).map((m) => [m.body, m.receiveCount])).toEqual([['b1', 2]]);
    expect((await queues.receive('held', 10, 60)).map((m) => [m.body, m.receiveCount])).toEqual([['a2', 2]]);
  });

  it('drops messages older than the retention period', async () => {
    const clock = new ManualClock(1_000);
    const spec: QueueSpec = { ...fifo('merge-a'), retentionDays: 14 };
    const queues = new LocalQueues([spec], clock, () => async () => {
      throw new Error('down');
    });
    await queues.send('merge-a', [{ body: 'old', groupId: 'a', dedupId: 'old' }]);
    await queues.drain();
    clock.advance(14 * 86_400_000 - 1_000);
    expect(queues.depth('merge-a')).toBe(1);
    clock.advance(1_001);
    expect(queues.depth('merge-a')).toBe(0);
  });
});
