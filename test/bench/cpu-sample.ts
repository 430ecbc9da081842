/**
 * The one way the bench measures CPU (issue 27 point 1: what Lambda pays in steady state). Every CPU figure
 * runs its work through `sampleCpu`: `warmup` runs first and are not counted (V8 compiles the hot paths during
 * the first few and a figure taken then measures the compiler), then `runs` counted runs, of which the median
 * is the figure and the mean is printed beside it (a mean well above the median says a GC or another process
 * landed inside some runs).
 *
 * Two CPU clocks per run:
 *  - main thread: the thread that runs the JavaScript, what a Lambda invocation waits for. Node 23.9+ has
 *    `process.threadCpuUsage()`; on older Node (this machine has 20) it is the main thread's `sum_exec_runtime`
 *    in /proc/<pid>/task/<pid>/schedstat (Linux, nanoseconds; the main thread's id is the process id);
 *  - whole process: `process.cpuUsage()`, every thread of this process (V8's GC helpers and compiler, zlib's
 *    and libuv's pools): what the Lambda's vCPU share is spent on in all.
 * Engines the runtime starts (DynamoDB Local, s3rver) are other processes and count in neither. Wall time is
 * shown too; it includes the engines' answers and whatever else the machine runs.
 */
import { readFileSync } from 'node:fs';

/** One reading of the three clocks, in ms. */
export interface CpuClock {
  thread: number;
  process: number;
  wall: number;
}

/** Median and mean of one clock over the counted runs. */
export interface Spread {
  median: number;
  mean: number;
}

export interface CpuStats {
  warmup: number;
  runs: number;
  thread: Spread;
  process: Spread;
  wall: Spread;
  /** Where the main-thread figure comes from. */
  threadSource: 'threadCpuUsage' | 'schedstat' | 'process';
}

type ThreadCpu = (prev?: NodeJS.CpuUsage) => NodeJS.CpuUsage;
const threadCpuUsage = (process as unknown as { threadCpuUsage?: ThreadCpu }).threadCpuUsage;
const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`;

function schedstatMs(): number | null {
  try {
    return Number(readFileSync(SCHEDSTAT, 'ascii').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Which main-thread clock this process has (fixed once: a figure never mixes two). */
export const threadSource: CpuStats['threadSource'] = threadCpuUsage ? 'threadCpuUsage' : schedstatMs() !== null ? 'schedstat' : 'process';

/** The clocks now. */
export function readClock(): CpuClock {
  const p = process.cpuUsage();
  const processMs = (p.user + p.system) / 1000;
  let thread = processMs;
  if (threadSource === 'threadCpuUsage') {
    const t = (threadCpuUsage as ThreadCpu)();
    thread = (t.user + t.system) / 1000;
  } else if (threadSource === 'schedstat') thread = schedstatMs() ?? processMs;
  return { thread, process: processMs, wall: performance.now() };
}

/** The clocks elapsed since `from`. */
export function since(from: CpuClock): CpuClock {
  const now = readClock();
  return { thread: now.thread - from.thread, process: now.process - from.process, wall: now.wall - from.wall };
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const spread = (values: readonly number[]): Spread => ({ median: median(values), mean: mean(values) });

/** At least what the issue asks for every CPU figure: 8 runs of warm-up, the median of 15. */
export const WARMUP = 8;
export const RUNS = 15;

export interface SampleOptions {
  warmup?: number;
  runs?: number;
  /** Before each run, outside the timed span (e.g. pause background work, prepare the input). */
  before?: (i: number) => Promise<void> | void;
  /** After each run, outside the timed span (e.g. resume background work, let it settle). */
  after?: (i: number) => Promise<void> | void;
  /**
   * The order the works run in within run `i` (indexes into `works`, each once; default as given): alternating
   * it cancels what the position in a run does to a work (e.g. the garbage of the run before it).
   */
  order?: (i: number) => readonly number[];
}

/**
 * Runs `work` `warmup + runs` times (run index from 0, warm-up first), timing only `work` itself, and
 * returns the counted runs' median and mean of each clock.
 */
export async function sampleCpu(work: (i: number) => Promise<void> | void, options: SampleOptions = {}): Promise<CpuStats> {
  return (await sampleCpuAlternating([work], options))[0];
}

/**
 * Several works measured in turn within each run (`before`, then each work timed on its own, then `after`), so
 * load on a shared machine and the process's own drift fall on all of them alike: for figures that are
 * ratios of two works, and for before/after comparisons in one process. One `CpuStats` per work.
 */
export async function sampleCpuAlternating(works: ReadonlyArray<(i: number) => Promise<void> | void>, options: SampleOptions = {}): Promise<CpuStats[]> {
  const warmup = options.warmup ?? WARMUP;
  const runs = options.runs ?? RUNS;
  if (warmup < 0 || runs < 1) throw new RangeError('sampleCpu needs at least one counted run');
  const taken: CpuClock[][] = works.map(() => []);
  for (let i = 0; i < warmup + runs; i++) {
    await options.before?.(i);
    const order = options.order?.(i) ?? works.map((_, w) => w);
    if (order.length !== works.length || new Set(order).size !== works.length || order.some((w) => !(w in works)))
      throw new RangeError('sampleCpu order must name every work once');
    for (const w of order) {
      const from = readClock();
      await works[w](i);
      const used = since(from);
      if (i >= warmup) taken[w].push(used);
    }
    await options.after?.(i);
  }
  return taken.map((t) => ({
    warmup,
    runs,
    thread: spread(t.map((c) => c.thread)),
    process: spread(t.map((c) => c.process)),
    wall: spread(t.map((c) => c.wall)),
    threadSource,
  }));
}

/** `12.3 ms (mean 14.0)` of one clock, for notes and logs. */
export const formatSpread = (s: Spread, digits = 1): string => `${s.median.toFixed(digits)} ms (mean ${s.mean.toFixed(digits)})`;

/** One line: main thread, whole process and wall, with the run counts. */
export function describeStats(s: CpuStats): string {
  return `main thread ${formatSpread(s.thread)}, process ${formatSpread(s.process)}, wall ${formatSpread(s.wall)}; median of ${s.runs} after ${s.warmup} warm-up (main thread by ${s.threadSource})`;
}
