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
import { readBody } from '../../shared/upload/body';
import { type CpuStats, describeStats, sampleCpuAlternating } from './cpu-sample';

export interface ValidationFigures {
  entries: number;
  gzipBytes: number;
  jsonBytes: number;
  /** decompress + parse + validate, median main-thread CPU ms. */
  ms: number;
  /** bare JSON.parse of the same text, median main-thread CPU ms. */
  jsonParseMs: number;
  ratio: number;
  /** Both works' clocks (test/bench/cpu-sample.ts); the figures above are main-thread medians. */
  ours: CpuStats;
  bare: CpuStats;
}

/** Spec upload path: gunzip + parseBook of a 200000-entry book vs bare JSON.parse (target ratio <= 2.5). */
export async function benchValidation(): Promise<ValidationFigures> {
  const gen = new MarketGenerator({ keys: 60_000, entries: 206_000, seed: 11 });
  const full = gen.nextBook();
  const entries = full.entries.slice(0, 200_000);
  const book: Book = { ...full, entries, auctions: entries.reduce((s, e) => s + e[4], 0) };
  const text = JSON.stringify(book);
  const gz = gzipSync(text);
  // The two alternate run by run, so load on the machine falls on both alike.
  const [bare, ours] = await sampleCpuAlternating([
    () => {
      JSON.parse(text);
    },
    () => {
      if (parseBook(readBody(gz, 'gzip'), book.at).entries.length !== 200_000) throw new Error('validation bench parsed the wrong book');
    },
  ]);
  return {
    entries: entries.length,
    gzipBytes: gz.length,
    jsonBytes: text.length,
    ms: ours.thread.median,
    jsonParseMs: bare.thread.median,
    ratio: ours.thread.median / bare.thread.median,
    ours,
    bare,
  };
}

const fmt = (n: number, d = 1): string => n.toFixed(d);

async function main(): Promise<void> {
  const v = await benchValidation();
  console.log('validation (200000-entry gzip book)');
  console.log(`  gzip ${v.gzipBytes} B, json ${v.jsonBytes} B`);
  console.log(`  gunzip+parse+validate: ${describeStats(v.ours)}`);
  console.log(`  bare JSON.parse: ${describeStats(v.bare)}`);
  console.log(`  ratio ${fmt(v.ratio, 2)} (target <= 2.5)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
