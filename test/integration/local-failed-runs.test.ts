/**
 * Nothing fails silently, locally (issue 26 point 3): a scheduled run that throws lands its event where the
 * operator will see it, as in AWS (the function's on-failure destination, the schedule's failed-runs queue):
 * the local seal fault makes every seal run throw, and the failed run's record waits in `seal-failed-runs`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedRunsQueueName, SCHEDULES } from '../../shared/topology';
import { type Local, startLocal } from '../support/local';

interface QueueContents {
  queues: Record<string, Array<{ body: string }>>;
}

describe('failed scheduled runs (local runtime)', () => {
  let local: Local;
  const failedRuns = async (schedule: string) =>
    ((await local.api('GET', '/_local/queues')).body as QueueContents).queues[failedRunsQueueName(schedule)].map((m) => JSON.parse(m.body));

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('has a failed-runs queue per schedule, empty while the jobs succeed', async () => {
    await local.advance(60_000);
    expect(await local.tick()).toContain('seal');
    for (const s of SCHEDULES) expect(await failedRuns(s.name), s.name).toEqual([]);
  });

  it('lands a seal run that throws in seal-failed-runs, as Lambda records an on-failure destination', async () => {
    expect(await local.faults({ seal: 'fail' })).toMatchObject({ seal: 'fail' });
    await local.advance(60_000);
    const at = await local.now();
    expect(await local.tick()).toContain('seal');
    const [record, ...more] = await failedRuns('seal');
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      version: '1.0',
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 1, functionArn: expect.stringMatching(/:function:seal:\$LATEST$/) },
      requestPayload: { source: 'aws.events', 'detail-type': 'Scheduled Event', resources: [expect.stringMatching(/rule\/seal$/)] },
      responseContext: { functionError: 'Unhandled' },
      responsePayload: { errorType: 'Error', errorMessage: expect.stringContaining('seal failed') },
    });
    expect(Date.parse(record.requestPayload.time)).toBeLessThanOrEqual(at);
    // The other jobs ran and failed nothing.
    for (const s of SCHEDULES.filter((x) => x.name !== 'seal')) expect(await failedRuns(s.name), s.name).toEqual([]);
  });

  it('keeps the failed run for the operator and adds none once the seal works again', async () => {
    expect(await local.faults({ seal: 'none' })).toMatchObject({ seal: 'none' });
    await local.advance(60_000);
    expect(await local.tick()).toContain('seal');
    expect(await failedRuns('seal')).toHaveLength(1);
  });
});
