/**
 * The bench's one way of measuring CPU (issue 27 point 1): a warm-up that is not counted, the median of at
 * least 15 runs with the mean beside it, and the main thread's CPU apart from the whole process's.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { median, RUNS, readClock, sampleCpu, sampleCpuAlternating, since, threadSource, WARMUP } from '../bench/cpu-sample';

/** Busy CPU on this thread for about `ms`. */
function spin(ms: number): void {
  const end = readClock().thread + ms;
  while (readClock().thread < end) {
    // spin
  }
}

describe('bench CPU sampling', () => {
  it('warms up at least 8 runs and counts the median of at least 15, the warm-up runs left out', async () => {
    expect(WARMUP).toBeGreaterThanOrEqual(8);
    expect(RUNS).toBeGreaterThanOrEqual(15);
    const seen: number[] = [];
    // Warm-up runs are slow (as V8 compiling the first merges); counted ones ~2 ms, one outlier of ~40 ms.
    const stats = await sampleCpu((i) => {
      seen.push(i);
      spin(i < WARMUP ? 30 : i === WARMUP + 3 ? 40 : 2);
    });
    expect(seen).toEqual(Array.from({ length: WARMUP + RUNS }, (_, i) => i));
    expect(stats.runs).toBe(RUNS);
    expect(stats.warmup).toBe(WARMUP);
    expect(stats.thread.median).toBeGreaterThanOrEqual(1.9);
    expect(stats.thread.median).toBeLessThan(15);
    // The mean carries the outlier the median leaves out.
    expect(stats.thread.mean).toBeGreaterThan(stats.thread.median + 1);
  });

  it('measures the main thread apart from the whole process (a worker thread counts in the process only)', async () => {
    expect(threadSource).not.toBe('process');
    const from = readClock();
    // The worker spins until the process has used 250 ms of CPU (this thread only waits meanwhile), a bound in
    // CPU, not in iterations: 3e8 iterations were 1.2 s of CPU here, ~5 s of the unit tier under load.
    const worker = new Worker(
      'const from = process.cpuUsage(); let x = 0; for (;;) { for (let i = 0; i < 1e5; i++) x = (x + i) % 1000003; const u = process.cpuUsage(from); if (u.user + u.system >= 250000) break; } require("node:worker_threads").parentPort.postMessage(x);',
      { eval: true },
    );
    await new Promise((resolve) => worker.on('exit', resolve));
    const used = since(from);
    // The worker's ~250 ms of CPU count in the process; this thread only waited.
    expect(used.process - used.thread).toBeGreaterThan(60);
    expect(used.thread).toBeLessThan(used.process / 2);
  });

  it('times each of several works on its own, in turn within each run', async () => {
    const order: string[] = [];
    const [a, b] = await sampleCpuAlternating(
      [
        () => {
          order.push('a');
          spin(1);
        },
        () => {
          order.push('b');
          spin(6);
        },
      ],
      { warmup: 1, runs: 3, before: () => void order.push('('), after: () => void order.push(')') },
    );
    expect(order.join('')).toBe('(ab)'.repeat(4));
    expect(b.thread.median).toBeGreaterThan(a.thread.median + 3);
  });

  it('runs the works of each run in the order asked for that run, each still counted as itself', async () => {
    const ran: string[] = [];
    const stats = await sampleCpuAlternating(
      [
        () => {
          ran.push('a');
          spin(1);
        },
        () => {
          ran.push('b');
          spin(4);
        },
      ],
      { warmup: 1, runs: 4, order: (i) => (i % 2 === 0 ? [0, 1] : [1, 0]) },
    );
    expect(ran.join('')).toBe('abbaabbaab');
    expect(stats[1].thread.median).toBeGreaterThan(stats[0].thread.median + 1.5);
    await expect(sampleCpuAlternating([() => undefined, () => undefined], { runs: 1, order: () => [0, 0] })).rejects.toThrow(RangeError);
  });

  it('takes the middle of an even count as the mean of the two middle values', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
  });
});
