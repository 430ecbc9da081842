/**
 * Issue 25 point 3: the local runtime's `table` and `storage` faults as port decorators (lib/local/control/faults.ts),
 * so they hold whatever stands behind the ports. Here the in-memory fakes stand behind them: while a fault is
 * down, every call of the ports on that dependency (nested parts too) fails with the ports' one outage error
 * before the fake runs, the other ports answer, and switching the fault back up restores the answers.
 */
import { describe, expect, it } from 'vitest';
import { type Faults, withFaults } from '../../lib/local/control/faults';
import { ManualClock } from '../../shared/clock';
import { fileSize } from '../../shared/files/file-store';
import { DependencyFailure, isDependencyFailure } from '../../shared/ports/dependency-failure';
import { MemoryFiles } from '../../shared/store/memory/files';
import { MemoryIdentity } from '../../shared/store/memory/identity';
import { memoryMarket } from '../../shared/store/memory/market';
import { MemoryQueues } from '../../shared/store/memory/queues';

async function rejectionOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded');
}

const fakes = () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
  return {
    clock,
    market: memoryMarket(clock),
    identity: new MemoryIdentity(),
    files: new MemoryFiles(clock),
    work: new MemoryFiles(clock),
    queues: new MemoryQueues(clock),
  };
};

describe('local faults as port decorators', () => {
  it('fails every table port call (market parts, identity) with one DependencyFailure while the table is down, and answers again once it is up', async () => {
    const faults: Faults = { identity: 'up', storage: 'up', table: 'down', seal: 'none' };
    const raw = fakes();
    const svc = withFaults(raw, faults);
    const meta = await rejectionOf(() => svc.market.pages.meta('eu'));
    expect(meta).toBeInstanceOf(DependencyFailure);
    expect((meta as DependencyFailure).dependency).toBe('table');
    expect(isDependencyFailure(await rejectionOf(() => svc.market.merges.after('eu', 0, raw.clock.now())))).toBe(true);
    expect(isDependencyFailure(await rejectionOf(() => svc.identity.getProfile('u1')))).toBe(true);
    // The bucket and the queues are not the table: they answer.
    await svc.files.put('snap/v1/eu/latest.json', Buffer.from('{}'), { contentType: 'application/json', cacheControl: 'no-store' });
    expect(await fileSize(svc, 'snap/v1/eu/latest.json')).toBe(2);
    await svc.queues.send('push', [{ body: 'm' }]);
    faults.table = 'up';
    expect((await svc.market.pages.meta('eu')).seq).toBe(0);
    expect((await svc.identity.getProfile('u1')).claims).toBeNull();
  });

  it('fails the files and work buckets while storage is down and leaves the table ports answering', async () => {
    const faults: Faults = { identity: 'up', storage: 'down', table: 'up', seal: 'none' };
    const svc = withFaults(fakes(), faults);
    for (const call of [
      () => fileSize(svc, 'books/v1/x'),
      () => svc.work.list('answers/'),
      () => svc.files.put('live/x', Buffer.from('1'), { contentType: 'text/plain', cacheControl: 'no-store' }),
    ]) {
      const err = await rejectionOf(call);
      expect(err).toBeInstanceOf(DependencyFailure);
      expect((err as DependencyFailure).dependency).toBe('bucket');
    }
    expect((await svc.market.pages.meta('eu')).market).toBe('eu');
    faults.storage = 'up';
    expect(await fileSize(svc, 'books/v1/x')).toBeNull();
  });

  it('changes nothing while every fault is up: the decorated fakes hold what the raw ones hold', async () => {
    const faults: Faults = { identity: 'up', storage: 'up', table: 'up', seal: 'none' };
    const raw = fakes();
    const svc = withFaults(raw, faults);
    await svc.files.put('recent/v1/eu/1.json', Buffer.from('[1]'), { contentType: 'application/json', cacheControl: 'no-store' });
    expect(await raw.files.get('recent/v1/eu/1.json')).toEqual(Buffer.from('[1]'));
    expect(svc.clock).toBe(raw.clock);
    expect(svc.queues).toBe(raw.queues);
  });
});
