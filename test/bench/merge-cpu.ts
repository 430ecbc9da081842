/**
 * `merge.cpu_ms`: the CPU of the production merge (shared/market/merge-book.ts `mergeBook`, the code the merge
 * Lambda runs for each message) of a complete 60000-entry book of a 20000-key market after a previous one.
 * Nothing is copied: the book is stored as the upload stores it (gzip book file in the files bucket), and the
 * merge reads it back (GET + gunzip + JSON.parse), reads the market's pages, merges, encodes and writes them,
 * writes its change file (JSON + gzip + PUT), its logs and its seq commit.
 *
 * The merge's stores are not in memory (it talks to DynamoDB and S3 through the SDK clients), so it runs on
 * the local runtime's engines, DynamoDB Local and s3rver, which are child processes: `process.cpuUsage()` of
 * this process counts the merge's own work (the SDK's marshalling and HTTP included, as in Lambda, and zlib's
 * thread pool), not the engines'. Wall time, which includes the engines' answers, is reported beside it.
 * The first merge warms the process (module load, connection pool) and is not counted.
 * Run alone with `npx tsx test/bench/merge-cpu.ts`.
 */
import { pathToFileURL } from 'node:url';
import { startRuntime } from '../../lib/local/runtime';
import { type ManualClock, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import type { Book } from '../../shared/domain/book';
import { deriveScan } from '../../shared/domain/derived-scan';
import { mergeBook } from '../../shared/market/merge-book';
import { storeBookFile } from '../../shared/upload/book-storage';
import { services } from '../support/operator';

export interface MergeCpuFigures {
  keys: number;
  entries: number;
  scanItems: number;
  /** Median process CPU ms (user + system) of one production merge of a complete book after a previous one. */
  ms: number;
  /** Median wall-clock ms of the same merges (engines' time included; inflated when the machine is busy). */
  wallMs: number;
  runs: number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];

export async function benchMergeCpu(runs = 5): Promise<MergeCpuFigures> {
  const start = Date.UTC(2026, 10, 2, 12, 0, 0);
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: start, log: false });
  try {
    const svc = services();
    const clock = rt.clock as ManualClock;
    const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 5, start, stepMs: 10 * MINUTE_MS });
    const cpu: number[] = [];
    const wall: number[] = [];
    let last: Book | null = null;
    // Merge 1 has no previous book (no volume) and warms the process; merge 2 is the first timed one.
    for (let i = 0; i < runs + 1; i++) {
      const book = gen.nextBook();
      const bookPath = await storeBookFile(svc, book);
      clock.set(book.at + MINUTE_MS);
      const msg = {
        v: 1,
        kind: 'book',
        market: book.market,
        uploadId: `bench-merge-${i}`,
        bookPath,
        at: book.at,
        uploader: 'a1b2c3d4e5f60718',
        credited: true,
      } as const;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await mergeBook(svc, msg);
      const w = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (!out.merged || out.seq !== i + 1) throw new Error(`merge ${i + 1} did not merge: ${JSON.stringify(out)}`);
      if (i > 0) {
        cpu.push((c.user + c.system) / 1000);
        wall.push(w);
      }
      last = book;
      // The merge record's live fan-out and the stream's other work run before the next timed merge.
      await rt.settle();
    }
    const book = last as Book;
    return { keys: gen.keys.length, entries: book.entries.length, scanItems: deriveScan(book).items.length, ms: median(cpu), wallMs: median(wall), runs };
  } finally {
    await rt.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const m = await benchMergeCpu();
  console.log(
    `merge.cpu_ms ${m.ms.toFixed(1)} ms CPU (wall ${m.wallMs.toFixed(1)} ms), production mergeBook, ${m.entries} entries, ${m.scanItems} scan items, ${m.keys} keys, median of ${m.runs} (target <= 250)`,
  );
  process.exit(0);
}
