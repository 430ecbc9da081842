/**
 * `merge.cpu_ms`: the CPU of the production merge (shared/market/merge-book.ts `mergeBook`, the code the merge
 * Lambda runs for each message) of a complete 60000-entry book of a 20000-key market after a previous one, in
 * steady state (issue 27 point 1): the process is warmed by `WARMUP` merges first, the local runtime's
 * background stream poll is paused while a merge is timed (on AWS the stream's consumers are other Lambdas)
 * and the figure is the median of `RUNS` merges, its mean printed beside it (test/bench/cpu-sample.ts).
 * Nothing is copied: the book is stored as the upload stores it (gzip book file in the files bucket), and the
 * merge reads it back (GET + gunzip + JSON.parse), reads the market's pages, merges, encodes and writes them,
 * writes its change file (JSON + gzip + PUT), its logs and its seq commit.
 *
 * The merge's stores are not in memory (it talks to DynamoDB and S3 through the SDK clients), so it runs on
 * the local runtime's engines, DynamoDB Local and s3rver, which are child processes and count in no CPU clock
 * here. The main thread's CPU (what an invocation waits for) and the whole process's (GC helpers, zlib's pool)
 * are both shown; the figure is the main thread's.
 *
 * The floor beside it: the same book's stored bytes gunzipped and parsed and a minimal per-key loop over its
 * entries (each key's lowest price and total quantity), in the same process with the same discipline — the
 * least any merge of that book must spend. Run alone with `npx tsx test/bench/merge-cpu.ts`.
 */
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { startRuntime } from '../../lib/local/runtime';
import { type ManualClock, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import type { Book, BookEntry } from '../../shared/domain/book';
import { deriveScan } from '../../shared/domain/derived-scan';
import { getObject } from '../../shared/items/bucket';
import { mergeBook } from '../../shared/market/merge-book';
import { storeBookFile } from '../../shared/upload/book-storage';
import { services } from '../support/operator';
import { type CpuStats, describeStats, RUNS, sampleCpu, sampleCpuAlternating, WARMUP } from './cpu-sample';

export interface MergeCpuFigures {
  keys: number;
  entries: number;
  scanItems: number;
  /** The production merge of a complete book after a previous one. */
  merge: CpuStats;
  /** gunzip + JSON.parse + a minimal per-key loop of the same book. */
  floor: CpuStats;
  /**
   * With `ab`: merges alternating run by run between one that starts from the store (the previous merge ran on
   * another instance) and one that starts from the pages its instance kept (merge-pages.ts), on the same load.
   */
  ab?: { fromStore: CpuStats; kept: CpuStats };
}

/** The least work over a book's entries: each key's lowest price and total quantity. */
function perKeyFloor(entries: readonly BookEntry[]): number {
  const low = new Map<number, number>();
  const qty = new Map<number, number>();
  for (const [key, price, stack, , n] of entries) {
    const l = low.get(key);
    if (l === undefined || price < l) low.set(key, price);
    qty.set(key, (qty.get(key) ?? 0) + stack * n);
  }
  return low.size + qty.size;
}

export async function benchMergeCpu(opts: { warmup?: number; runs?: number; ab?: boolean } = {}): Promise<MergeCpuFigures> {
  const warmup = opts.warmup ?? WARMUP;
  const runs = opts.runs ?? RUNS;
  const start = Date.UTC(2026, 10, 2, 12, 0, 0);
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: start, log: false });
  try {
    const svc = services();
    const clock = rt.clock as ManualClock;
    const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 5, start, stepMs: 10 * MINUTE_MS });
    // Merge 0 has no previous book (no volume): it is merged before the sample, which then starts warm-up.
    let seq = 0;
    let book = gen.nextBook();
    let msg = await prepare(book, seq);
    const mergeWith = async (on: typeof svc, m: typeof msg) => {
      const out = await mergeBook(on, m);
      seq++;
      if (!out.merged || out.seq !== seq) throw new Error(`merge ${seq} did not merge: ${JSON.stringify(out)}`);
    };
    const mergeOne = () => mergeWith(svc, msg);
    async function prepare(b: Book, i: number) {
      const bookPath = await storeBookFile(svc, b);
      clock.set(b.at + MINUTE_MS);
      return { v: 1, kind: 'book', market: b.market, uploadId: `bench-merge-${i}`, bookPath, at: b.at, uploader: 'a1b2c3d4e5f60718', credited: true } as const;
    }
    await mergeOne();
    await rt.settle();
    const merge = await sampleCpu(mergeOne, {
      warmup,
      runs,
      before: async (i) => {
        book = gen.nextBook();
        msg = await prepare(book, i + 1);
        await rt.pauseStreamPoll();
      },
      // The merge record's live fan-out and the stream's other work run before the next timed merge.
      after: async () => {
        rt.resumeStreamPoll();
        await rt.settle();
      },
    });
    let ab: MergeCpuFigures['ab'];
    if (opts.ab) {
      // A second merge instance over the same store: the kept pages are per store object.
      const other = { ...svc, market: { ...svc.market, latest: Object.create(svc.market.latest) as typeof svc.market.latest } };
      const on = [svc, other];
      const msgs: Array<typeof msg> = [];
      // Each run: a merge on the instance the previous run did not use (from the store), then one more on it (kept).
      const [fromStore, kept] = await sampleCpuAlternating([(i) => mergeWith(on[i % 2], msgs[0]), (i) => mergeWith(on[i % 2], msgs[1])], {
        warmup,
        runs,
        before: async () => {
          msgs.length = 0;
          for (let k = 0; k < 2; k++) {
            book = gen.nextBook();
            msgs.push(await prepare(book, 1000 + seq + k));
          }
          await rt.pauseStreamPoll();
        },
        after: async () => {
          rt.resumeStreamPoll();
          await rt.settle();
        },
      });
      ab = { fromStore, kept };
    }
    const stored = await getObject(svc, msg.bookPath);
    if (!stored) throw new Error('the bench book was not stored');
    let sink = 0;
    const floor = await sampleCpu(
      () => {
        const parsed = JSON.parse(gunzipSync(stored.data).toString('utf8')) as { entries: BookEntry[] };
        sink += perKeyFloor(parsed.entries);
      },
      { warmup, runs },
    );
    if (sink === 0) throw new Error('the floor saw no keys');
    return { keys: gen.keys.length, entries: book.entries.length, scanItems: deriveScan(book).items.length, merge, floor, ab };
  } finally {
    await rt.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const m = await benchMergeCpu({ ab: process.argv.includes('--ab') });
  console.log(`merge.cpu_ms ${m.merge.thread.median.toFixed(1)} ms main-thread CPU (target <= 130, stretch <= 90)`);
  console.log(`  merge: ${describeStats(m.merge)}`);
  console.log(`  floor: ${describeStats(m.floor)}`);
  console.log(
    `  ratio to floor ${(m.merge.thread.median / m.floor.thread.median).toFixed(1)}x; ${m.entries} entries, ${m.scanItems} scan items, ${m.keys} keys`,
  );
  if (m.ab) {
    console.log(`  A/B from the store: ${describeStats(m.ab.fromStore)}`);
    console.log(`  A/B kept pages:     ${describeStats(m.ab.kept)}`);
  }
  process.exit(0);
}
