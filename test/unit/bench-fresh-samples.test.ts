/**
 * Cold figures under the bench's discipline (issue 27 point 1, "the same discipline for every CPU figure";
 * point 3's cold reads): the median of several fresh instances, each made fresh outside the timed span, every
 * sample printed, so one noisy sample no longer decides the figure.
 */
import { describe, expect, it } from 'vitest';
import { describeFresh, FRESH_SAMPLES, sampleFresh } from '../bench/fresh-samples';

describe('bench cold figures', () => {
  it('takes at least 5 fresh instances, each prepared before its answer, and one slow sample does not decide the figure', async () => {
    expect(FRESH_SAMPLES).toBeGreaterThanOrEqual(5);
    const events: string[] = [];
    // One sample landed on a busy machine (3000 ms); the others are about 800 ms.
    const times = [810, 3000, 790, 805, 800];
    const s = await sampleFresh(
      (i) => {
        events.push(`prepare ${i}`);
      },
      async (i) => {
        events.push(`answer ${i}`);
        return { ms: times[i], apiMs: times[i] / 2 };
      },
    );
    expect(events).toEqual(Array.from({ length: FRESH_SAMPLES }, (_, i) => [`prepare ${i}`, `answer ${i}`]).flat());
    expect(s.samples.map((x) => x.ms)).toEqual(times.slice(0, FRESH_SAMPLES));
    expect(s.median).toBe(805);
    // What the sample answered is kept whole (the API's part beside the wall time).
    expect(s.samples[1].apiMs).toBe(1500);
  });

  it('prints every sample in the note, in the order taken', async () => {
    const s = await sampleFresh(
      () => undefined,
      async (i) => ({ ms: [940.2, 1008.4, 777.7][i] }),
      3,
    );
    expect(describeFresh(s.samples.map((x) => x.ms))).toBe('median of 3 fresh instances, each after a merge (940, 1008, 778 ms)');
  });

  it('refuses to take a figure of no sample', async () => {
    await expect(
      sampleFresh(
        () => undefined,
        async () => ({ ms: 1 }),
        0,
      ),
    ).rejects.toThrow(RangeError);
  });
});
