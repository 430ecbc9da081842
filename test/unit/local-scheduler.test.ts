import { describe, expect, it } from 'vitest';
import { failedRunRecord, LocalScheduler } from '../../lib/local/background/scheduler';
import { ManualClock } from '../../shared/clock';
import { keepOutOfLogs } from '../../shared/log-redact';

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

describe('failed scheduled runs (issue 26 point 3)', () => {
  it('hands a run that throws to onError with its event, and goes on with the other schedules', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 2, 0, 0, 30));
    const failed: Array<{ name: string; event: string; message: string }> = [];
    const ran: string[] = [];
    const s = new LocalScheduler(
      [
        { name: 'seal', function: 'seal', everyMinutes: 1 },
        { name: 'live-sweep', function: 'live-sweep', everyMinutes: 1 },
      ],
      clock,
      (spec) => async () => {
        if (spec.name === 'seal') throw new Error('boom');
        ran.push(spec.name);
      },
      (spec, err, event) => failed.push({ name: spec.name, event: event.id, message: (err as Error).message }),
    );
    clock.advance(30_000);
    expect(await s.runDue()).toEqual(['seal', 'live-sweep']);
    expect(failed).toEqual([{ name: 'seal', event: `seal-${clock.now()}`, message: 'boom' }]);
    expect(ran).toEqual(['live-sweep']);
  });

  it("records the failure as Lambda's on-failure destination does, its message redacted", () => {
    keepOutOfLogs('sk_live_never_in_a_queue');
    const spec = { name: 'seal', function: 'seal', everyMinutes: 1 } as const;
    const event = { id: 'seal-1', region: 'local', account: '000000000000', time: '2026-11-02T00:01:00.000Z' } as never;
    const record = failedRunRecord(spec, event, new TypeError('rejected sk_live_never_in_a_queue'), Date.UTC(2026, 10, 2, 0, 1, 5));
    expect(record).toEqual({
      version: '1.0',
      timestamp: '2026-11-02T00:01:05.000Z',
      requestContext: {
        requestId: 'seal-1',
        functionArn: 'arn:aws:lambda:local:000000000000:function:seal:$LATEST',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 1,
      },
      requestPayload: event,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'TypeError', errorMessage: expect.not.stringContaining('sk_live_never_in_a_queue') },
    });
  });
});
