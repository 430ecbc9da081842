/**
 * Cold figures under the bench's one discipline (issue 27 point 1: "the same discipline for every CPU figure").
 * A cold figure is the first answer of a fresh instance after a merge, wall time through the local runtime;
 * one such answer moves 10–40 % with the machine's load (read.history_cold_ms was 942 ms and 1008 ms in two
 * whole runs of the same code eleven minutes apart), so one noisy sample decided the figure. Each sample here
 * is its own fresh instance: `prepare(i)` makes it one (a merge, the read caches cleared) outside the timed
 * span, then `work(i)` is its first answer. The figure is the median of the samples, and every sample is
 * printed in the note in the order taken, so a reader sees the spread the median was taken from.
 */
import { median } from './cpu-sample';

/** At least this many fresh instances per cold figure. */
export const FRESH_SAMPLES = 5;

export interface FreshSamples<T extends { ms: number }> {
  /** Median of the samples' `ms`. */
  median: number;
  /** Every sample, in the order taken. */
  samples: T[];
}

/**
 * Runs `prepare(i)` then `work(i)` `n` times (i from 0); `work` answers what it measured (its `ms` is the
 * sample). Nothing `prepare` does is in a sample: it returns before `work` starts.
 */
export async function sampleFresh<T extends { ms: number }>(
  prepare: (i: number) => Promise<void> | void,
  work: (i: number) => Promise<T>,
  n = FRESH_SAMPLES,
): Promise<FreshSamples<T>> {
  if (n < 1) throw new RangeError('sampleFresh needs at least one sample');
  const samples: T[] = [];
  for (let i = 0; i < n; i++) {
    await prepare(i);
    samples.push(await work(i));
  }
  return { median: median(samples.map((s) => s.ms)), samples };
}

/** Of the samples' ms: `median of 5 fresh instances, each after a merge (812, 940, 1003, 777, 790 ms)`, for a figure's note. */
export const describeFresh = (samples: readonly number[]): string =>
  `median of ${samples.length} fresh instances, each after a merge (${samples.map((ms) => ms.toFixed(0)).join(', ')} ms)`;
