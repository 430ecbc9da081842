import { describe, expect, it } from 'vitest';
import { LocalScheduler } from '../../lib/local/scheduler';
import { ManualClock } from '../../shared/clock';

describe('local scheduler (EventBridge rate schedules on the service clock)', () => {
  it('runs nothing until a period passes, then each due schedule once however many periods were skipped', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 2, 0, 0, 30));
    const runs: string[] = [];
    const s = new LocalScheduler(
      [
        { name: 'seal', function: 'seal', everyMinutes: 1 },
        { name: 'snapshot', function: 'snapshot', everyMinutes: 60 },
      ],
      clock,
      (spec) => async (event) => {
        runs.push(`${spec.name}@${event.time}`);
      },
      () => undefined,
    );
    expect(await s.runDue()).toEqual([]);
    clock.advance(30_000);
    expect(s.due()).toEqual(['seal']);
    expect(await s.runDue()).toEqual(['seal']);
    expect(await s.runDue()).toEqual([]);
    clock.advance(3 * 3_600_000);
    expect(await s.runDue()).toEqual(['seal', 'snapshot']);
    expect(runs).toEqual(['seal@2026-11-02T00:01:00.000Z', 'seal@2026-11-02T03:01:00.000Z', 'snapshot@2026-11-02T03:01:00.000Z']);
  });
});
