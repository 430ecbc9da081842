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
 * here. `merge.cpu_ms` is the merge on the merge Lambda's own production clients pointed straight at the
 * engines (lambda-services.ts): the local AWS edge every function's call goes through otherwise runs in this
 * process, and its side of each call (SigV4 recomputed, IAM, metering, forwarding) is AWS's on AWS, not the
 * Lambda's. The same merges through the edge are measured beside it, alternating merge by merge (A/B on the
 * same load), so the edge's share is a figure, not an estimate. The main thread's CPU (what an invocation
 * waits for) and the whole process's (GC helpers, zlib's pool) are both shown; the figure is the main thread's.
 *
 * The floor beside it: the same book's stored bytes gunzipped and parsed and a minimal per-key loop over its
 * entries (each key's lowest price and total quantity), in the same process with the same discipline — the
 * least any merge of that book must spend. Run alone with `npx tsx test/bench/merge-cpu.ts`.
 */
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { startDynamoDbLocal, startS3rver } from '../../lib/local/engines/engines';
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
import { lambdaServices } from './lambda-services';

export interface MergeCpuFigures {
  keys: number;
  entries: number;
  scanItems: number;
  /**
   * `merge.cpu_ms`: the production merge of a complete book after its instance's previous merge (the pages it
   * kept, merge-pages.ts), on the merge Lambda's own production clients reaching the engines directly: what
   * the Lambda pays (lambda-services.ts).
   */
  merge: CpuStats;
  /** The same merge with its calls through the local AWS edge: the edge's side of each call counted too. */
  viaEdge: CpuStats;
  /** A merge after one on another instance (everything read from the store), directly and through the edge. */
  fromStore: CpuStats;
  fromStoreViaEdge: CpuStats;
  /** gunzip + JSON.parse + a minimal per-key loop of the same book. */
  floor: CpuStats;
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

export async function benchMergeCpu(opts: { warmup?: number; runs?: number } = {}): Promise<MergeCpuFigures> {
  const warmup = opts.warmup ?? WARMUP;
  const runs = opts.runs ?? RUNS;
  const start = Date.UTC(2026, 10, 2, 12, 0, 0);
  // The engines are started here so the merge's direct clients know where they are (lambda-services.ts).
  const engines = await Promise.all([startDynamoDbLocal(null), startS3rver(null)]);
  const [ddbEngine, s3Engine] = engines;
  const rt = await startRuntime({
    port: 0,
    dataDir: ':memory:',
    clock: 'manual',
    clockStart: start,
    log: false,
    dynamodbEndpoint: ddbEngine.endpoint,
    s3Endpoint: s3Engine.endpoint,
  });
  try {
    const edged = services();
    const direct = lambdaServices(edged, { dynamodb: ddbEngine.endpoint, s3: s3Engine.endpoint });
    const clock = rt.clock as ManualClock;
    const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 5, start, stepMs: 10 * MINUTE_MS });
    let seq = 0;
    let uploads = 0;
    let book = gen.nextBook();
    async function prepare(b: Book) {
      const bookPath = await storeBookFile(edged, b);
      clock.set(b.at + MINUTE_MS);
      return {
        v: 1,
        kind: 'book',
        market: b.market,
        uploadId: `bench-merge-${uploads++}`,
        bookPath,
        at: b.at,
        uploader: 'a1b2c3d4e5f60718',
        credited: true,
      } as const;
    }
    type Message = Awaited<ReturnType<typeof prepare>>;
    const mergeWith = async (on: typeof edged, m: Message) => {
      const out = await mergeBook(on, m);
      seq++;
      if (!out.merged || out.seq !== seq) throw new Error(`merge ${seq} did not merge: ${JSON.stringify(out)}`);
    };
    // Merge 0 has no previous book (no volume): it is merged before the sample, which then starts warm-up.
    await mergeWith(direct, await prepare(book));
    await rt.settle();
    // Each run, four merges in turn on two instances over the same store, one on the Lambda's own clients and
    // one through the edge: each instance's first merge follows the other's (everything from the store), its
    // second its own (kept pages). So the edge's share is measured A/B, merge by merge, on the same load.
    // Every other run the edge's pair goes first, so neither pair keeps the advantage of its place in a run.
    const order = (i: number) => (i % 2 === 0 ? [0, 1, 2, 3] : [2, 3, 0, 1]);
    const msgs: Message[] = [];
    const on = [direct, direct, edged, edged];
    const [fromStore, merge, fromStoreViaEdge, viaEdge] = await sampleCpuAlternating(
      on.map((svc, w) => () => mergeWith(svc, msgs[w])),
      {
        warmup,
        runs,
        order,
        before: async (i) => {
          msgs.length = 0;
          // Books in the order the merges run (each newer than the last), each filed under its work.
          for (const w of order(i)) {
            book = gen.nextBook();
            msgs[w] = await prepare(book);
          }
          // On AWS the stream's consumers are other Lambdas: the background poll waits while merges are timed.
          await rt.pauseStreamPoll();
        },
        // The merge records' live fan-out and the stream's other work run before the next timed merges.
        after: async () => {
          rt.resumeStreamPoll();
          await rt.settle();
        },
      },
    );
    const stored = await getObject(edged, msgs[1].bookPath);
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
    return {
      keys: gen.keys.length,
      entries: book.entries.length,
      scanItems: deriveScan(book).items.length,
      merge,
      viaEdge,
      fromStore,
      fromStoreViaEdge,
      floor,
    };
  } finally {
    await rt.close();
    await Promise.all(engines.map((e) => e.stop()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const m = await benchMergeCpu();
  console.log(`merge.cpu_ms ${m.merge.thread.median.toFixed(1)} ms main-thread CPU (target <= 130, stretch <= 90)`);
  console.log(`  merge (kept pages, the Lambda's own clients): ${describeStats(m.merge)}`);
  console.log(`  the same through the local AWS edge:         ${describeStats(m.viaEdge)}`);
  console.log(`  from the store, the Lambda's own clients:    ${describeStats(m.fromStore)}`);
  console.log(`  from the store, through the local AWS edge:  ${describeStats(m.fromStoreViaEdge)}`);
  console.log(`  floor: ${describeStats(m.floor)}`);
  console.log(
    `  edge's share ${(m.viaEdge.thread.median - m.merge.thread.median).toFixed(1)} ms (kept), ${(m.fromStoreViaEdge.thread.median - m.fromStore.thread.median).toFixed(1)} ms (from the store); ratio to floor ${(m.merge.thread.median / m.floor.thread.median).toFixed(1)}x; ${m.entries} entries, ${m.scanItems} scan items, ${m.keys} keys`,
  );
  process.exit(0);
}
