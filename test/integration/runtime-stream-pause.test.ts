/**
 * The bench's seam in the local runtime (issue 27 point 1): while a merge is timed the background stream poll
 * is paused (on AWS the stream's consumers run in other Lambdas, not in the merge's process), and resumed
 * after; `settle` still polls meanwhile, so nothing written while paused is lost.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Local, startLocal } from '../support/local';

describe('local runtime stream poll pause', () => {
  let local: Local;
  let polls = 0;

  beforeAll(async () => {
    local = await startLocal();
    // The runtime's background (lib/local/background/background.ts) owns the poller.
    const poller = (local.runtime as unknown as { background: { poller: { pollOnce: () => Promise<number> } } }).background.poller;
    const pollOnce = poller.pollOnce.bind(poller);
    poller.pollOnce = () => {
      polls++;
      return pollOnce();
    };
  });
  afterAll(() => local.close());

  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A background poll after `count`: waited for as long as a loaded machine may delay the poller's timer. */
  const polledPast = (count: number) => vi.waitFor(() => expect(polls).toBeGreaterThan(count), { timeout: 60_000, interval: 50 });

  it('polls in the background, not while paused, again once resumed; settle polls while paused', async () => {
    await polledPast(polls);

    await local.runtime.pauseStreamPoll();
    const paused = polls;
    await wait(1500);
    expect(polls).toBe(paused);

    await local.runtime.settle();
    expect(polls).toBeGreaterThan(paused);

    const settled = polls;
    local.runtime.resumeStreamPoll();
    await polledPast(settled);
  });
});
