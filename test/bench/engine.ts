/**
 * CPU side of the upload path: book validation (gunzip + parse + validate) against bare JSON.parse.
 * The merge's CPU is measured on the production merge in merge-cpu.ts (no copy of the merge lives here);
 * page sizes and units are measured on DynamoDB Local in merge-cost.ts and reads.ts.
 * Run alone with `npx tsx test/bench/engine.ts`.
 */

import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { MarketGenerator } from '../../shared/demo/market-generator';
import { type Book, parseBook } from '../../shared/domain/book';
import { readBody } from '../../shared/http/body';

export interface ValidationFigures {
  entries: number;
  gzipBytes: number;
  jsonBytes: number;
  /** decompress + parse + validate, median CPU ms. */
  ms: number;
  /** bare JSON.parse of the same text, median CPU ms. */
  jsonParseMs: number;
  ratio: number;
  /** The same two medians in wall-clock ms (inflated when the machine is busy). */
  wallMs: number;
  jsonParseWallMs: number;
}

/** CPU and wall ms of one call. CPU time (user + system of this process) is what a busy host cannot inflate. */
function measure(fn: () => void): { cpu: number; wall: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { cpu: (d.user + d.system) / 1000, wall };
}

/** Spec upload path: gunzip + parseBook of a 200000-entry book vs bare JSON.parse (target ratio <= 2.5). */
export function benchValidation(runs = 7): ValidationFigures {
  const gen = new MarketGenerator({ keys: 60_000, entries: 206_000, seed: 11 });
  const full = gen.nextBook();
  const entries = full.entries.slice(0, 200_000);
  const book: Book = { ...full, entries, auctions: entries.reduce((s, e) => s + e[4], 0) };
  const text = JSON.stringify(book);
  const gz = gzipSync(text);
  const ours: { cpu: number; wall: number }[] = [];
  const bare: { cpu: number; wall: number }[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const b = measure(() => JSON.parse(text));
    let parsed: Book | undefined;
    const o = measure(() => {
      parsed = parseBook(readBody(gz, 'gzip'), book.at);
    });
    if (parsed?.entries.length !== 200_000) throw new Error('validation bench parsed the wrong book');
    if (i > 0) {
      bare.push(b);
      ours.push(o);
    }
  }
  const ms = median(ours.map((x) => x.cpu));
  const jsonParseMs = median(bare.map((x) => x.cpu));
  return {
    entries: entries.length,
    gzipBytes: gz.length,
    jsonBytes: text.length,
    ms,
    jsonParseMs,
    ratio: ms / jsonParseMs,
    wallMs: median(ours.map((x) => x.wall)),
    jsonParseWallMs: median(bare.map((x) => x.wall)),
  };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[(s.length - 1) >> 1];
}

const fmt = (n: number, d = 1): string => n.toFixed(d);

function main(): void {
  const v = benchValidation();
  console.log('validation (200000-entry gzip book)');
  console.log(`  gzip ${v.gzipBytes} B, json ${v.jsonBytes} B`);
  console.log(
    `  gunzip+parse+validate ${fmt(v.ms)} ms CPU (${fmt(v.wallMs)} wall), bare JSON.parse ${fmt(v.jsonParseMs)} ms CPU (${fmt(v.jsonParseWallMs)} wall)`,
  );
  console.log(`  ratio ${fmt(v.ratio, 2)} (target <= 2.5)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
