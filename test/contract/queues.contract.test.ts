/**
 * The queues port's contract, run against the in-memory fake and the local runtime's in-process queues (what
 * every integration test runs on). No engine plays SQS here: the SQS adapter's requests are checked by
 * test/unit/sqs-queues.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { LocalQueues } from '../../lib/local/background/queues';
import { ManualClock } from '../../shared/clock';
import type { QueuePort } from '../../shared/ports/queues';
import { MemoryQueues } from '../../shared/store/memory/queues';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const SHAPES = [
  { name: 'orders', fifo: true },
  { name: 'notes', fifo: false },
];

type Made = { queues: QueuePort; arnOf: (name: string) => string };

const variants: Array<[string, (clock: ManualClock) => Made]> = [
  [
    'memory',
    (clock) => {
      const queues = new MemoryQueues(clock, SHAPES);
      return { queues, arnOf: (n) => queues.arnOf(n) };
    },
  ],
  [
    'local runtime',
    (clock) => {
      const queues = new LocalQueues([], clock, () => async () => undefined, SHAPES);
      return { queues, arnOf: (n) => `arn:aws:sqs:local:000000000000:${n}${n === 'orders' ? '.fifo' : ''}` };
    },
  ],
];

describe.each(variants)('queues port (%s)', (_name, make) => {
  it('receives what was sent, attributes included, and hides it for the visibility timeout', async () => {
    const clock = new ManualClock(T0);
    const { queues } = make(clock);
    await queues.send('notes', [{ body: 'a', attributes: { why: 'test' } }]);
    const [m] = await queues.receive('notes', 10, 30);
    expect(m).toMatchObject({ body: 'a', receiveCount: 1, attributes: { why: 'test' } });
    expect(await queues.receive('notes', 10, 30)).toEqual([]);
    clock.advance(30_000);
    expect((await queues.receive('notes', 10, 30)).map((x) => [x.body, x.receiveCount])).toEqual([['a', 2]]);
  });

  it('forgets a deleted message', async () => {
    const clock = new ManualClock(T0);
    const { queues } = make(clock);
    await queues.send('notes', [{ body: 'a' }, { body: 'b' }]);
    const got = await queues.receive('notes', 10, 5);
    await queues.delete('notes', [got[0].receiptHandle]);
    clock.advance(5000);
    expect((await queues.receive('notes', 10, 5)).map((x) => x.body)).toEqual(['b']);
  });

  it('hands out a FIFO group in order, holding the group back while its head is hidden', async () => {
    const clock = new ManualClock(T0);
    const { queues } = make(clock);
    await queues.send('orders', [
      { body: '1', groupId: 'g', dedupId: '1' },
      { body: '2', groupId: 'g', dedupId: '2' },
      { body: 'x', groupId: 'h', dedupId: 'x' },
    ]);
    const first = await queues.receive('orders', 1, 60);
    expect(first.map((m) => [m.body, m.groupId, m.dedupId])).toEqual([['1', 'g', '1']]);
    // Group g waits behind its hidden head; group h is free.
    expect((await queues.receive('orders', 10, 60)).map((m) => m.body)).toEqual(['x']);
    await queues.delete('orders', [first[0].receiptHandle]);
    expect((await queues.receive('orders', 10, 60)).map((m) => m.body)).toEqual(['2']);
  });

  it('drops a FIFO message whose deduplication id was seen in the last five minutes', async () => {
    const clock = new ManualClock(T0);
    const { queues } = make(clock);
    await queues.send('orders', [{ body: 'a', groupId: 'g', dedupId: 'same' }]);
    await queues.send('orders', [{ body: 'again', groupId: 'g', dedupId: 'same' }]);
    clock.advance(5 * 60_000);
    await queues.send('orders', [{ body: 'later', groupId: 'g', dedupId: 'same' }]);
    const got = await queues.receive('orders', 10, 60);
    expect(got.map((m) => m.body)).toEqual(['a', 'later']);
  });

  it('delays a standard queue message by its delay', async () => {
    const clock = new ManualClock(T0);
    const { queues } = make(clock);
    await queues.send('notes', [{ body: 'later', delaySeconds: 30 }, { body: 'now' }]);
    expect((await queues.receive('notes', 10, 60)).map((m) => m.body)).toEqual(['now']);
    clock.advance(30_000);
    expect((await queues.receive('notes', 10, 60)).map((m) => m.body)).toEqual(['later']);
  });

  it('changes the visibility of received messages by the queue ARN their records carry', async () => {
    const clock = new ManualClock(T0);
    const { queues, arnOf } = make(clock);
    await queues.send('orders', [{ body: '1', groupId: 'g', dedupId: '1' }]);
    const [m] = await queues.receive('orders', 10, 600);
    await queues.changeVisibility(arnOf('orders'), [m.receiptHandle], 30);
    clock.advance(29_000);
    expect(await queues.receive('orders', 10, 600)).toEqual([]);
    clock.advance(1000);
    expect((await queues.receive('orders', 10, 600)).map((x) => x.body)).toEqual(['1']);
  });

  it('refuses a FIFO message without a group and a queue it does not know', async () => {
    const { queues } = make(new ManualClock(T0));
    await expect(queues.send('orders', [{ body: 'a' }])).rejects.toThrow(/group/);
    await expect(queues.send('nowhere', [{ body: 'a' }])).rejects.toThrow(/unknown queue/);
  });

  it('refuses a FIFO message without a deduplication id, as SQS does without content-based deduplication, and sends the rest', async () => {
    const clock = new ManualClock(T0);
    const { queues } = make(clock);
    await expect(queues.send('orders', [{ body: 'a', groupId: 'g' }])).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      queues.send('orders', [
        { body: 'b', groupId: 'g', dedupId: 'b' },
        { body: 'a', groupId: 'g' },
      ]),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    expect((await queues.receive('orders', 10, 60)).map((m) => m.body)).toEqual(['b']);
  });
});
