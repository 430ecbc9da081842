/**
 * `npm run bench`: every figure the issues ask for, measured in one run, printed as one table with its
 * target. `npm run bench -- --json PATH` also writes `[{name, value, unit, target}]` to PATH; `--cost` adds the
 * cost model's figures (test/bench/cost-units.ts; `npm run cost -- --figures PATH` prices them). Figures, not
 * tests: a missed target is printed, and the exit code stays 0 so a busy machine cannot fail a build. The one
 * exception is not a timing: a function bundle importing an SDK client its manifest access does not allow.
 */
import { writeFileSync } from 'node:fs';
import { benchCold, COLD_BEFORE_MS } from './cold';
import { benchMergeCpu, benchValidation } from './engine';
import { benchMergeCost } from './merge-cost';

interface Figure {
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. "<= 2.5". */
  target: string;
  /** Numeric bound for the check column. */
  max?: number;
  note?: string;
}

const figures: Figure[] = [];
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
const add = (f: Figure): void => {
  figures.push(f);
  const ok = f.max === undefined ? '' : f.value <= f.max ? 'ok' : 'MISSED';
  console.log(`${f.name.padEnd(32)} ${String(f.value).padStart(10)} ${f.unit.padEnd(6)} ${f.target.padEnd(10)} ${ok.padEnd(6)} ${f.note ?? ''}`);
};

/** Optional bench modules (areas that land later) are loaded when present. */
async function optional<T>(path: string): Promise<T | null> {
  try {
    return (await import(path)) as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module|Failed to load/.test(String(err))) return null;
    throw err;
  }
}

async function main(): Promise<void> {
  console.log(`${'figure'.padEnd(32)} ${'value'.padStart(10)} ${'unit'.padEnd(6)} ${'target'.padEnd(10)} check`);

  const v = benchValidation();
  add({ name: 'validate.ratio_to_json_parse', value: round(v.ratio, 2), unit: 'x', target: '<= 2.5', max: 2.5, note: `${round(v.ms)} ms vs JSON.parse ${round(v.jsonParseMs)} ms (CPU), 200000 entries` });

  const m = benchMergeCpu();
  add({ name: 'merge.cpu_ms', value: round(m.ms), unit: 'ms', target: '<= 250', max: 250, note: `${m.entries} entries, ${m.keys} keys (CPU; wall ${round(m.wallMs)} ms)` });

  const c = await benchMergeCost();
  add({ name: 'merge.write_units', value: round(c.writeUnits), unit: 'WCU', target: '<= 1500', max: 1500, note: `${c.entries} entries, ${c.keys} keys, after a previous book` });
  add({ name: 'merge.per_row_write_units', value: round(c.perRowWriteUnits), unit: 'WCU', target: '>= 50x', note: `${round(c.factor)}x the packed layout (item-size formula, not executed)` });
  add({ name: 'merge.end_to_end_ms', value: round(c.endToEndMs), unit: 'ms', target: 'report', note: `upload → merged through the local runtime (upload alone ${round(c.uploadMs)} ms)` });

  const reads = await optional<{ benchReads(): Promise<{ itemReadUnits: number; itemP50Ms: number; historyMs: number; historyGzipMs: number; intradayMs: number }> }>('./reads');
  if (reads) {
    const r = await reads.benchReads();
    add({ name: 'read.item_read_units', value: round(r.itemReadUnits), unit: 'RCU', target: '<= 30', max: 30, note: 'single-item answer (row + days + volume), 20000-key market' });
    add({ name: 'read.item_p50_ms', value: round(r.itemP50Ms), unit: 'ms', target: '<= 50', max: 50, note: 'through the local runtime' });
    add({ name: 'read.history_ms', value: round(r.historyMs), unit: 'ms', target: '<= 1000', max: 1000, note: `30 days, all items (plain; ${round(r.historyGzipMs)} ms to a client taking gzip)` });
    add({ name: 'read.intraday_ms', value: round(r.intradayMs), unit: 'ms', target: '<= 1000', max: 1000, note: '24 hours, all items' });
  } else {
    add({ name: 'read.item_read_units', value: round(c.itemReadUnits), unit: 'RCU', target: '<= 30', max: 30, note: 'row + 90 days of day points (store level)' });
  }

  const live = await optional<{ benchFanout(): Promise<number>; benchSnapshotFiles(): Promise<{ ms: number; seriesBytes: number }> }>('./live');
  if (live) {
    add({ name: 'live.fanout_2000_ms', value: round(await live.benchFanout()), unit: 'ms', target: '<= 2000', max: 2000, note: 'merge → last of 2000 sockets receives `ah`' });
    const snapshot = await live.benchSnapshotFiles();
    add({ name: 'files.snapshot_ms', value: round(snapshot.ms), unit: 'ms', target: '<= 3000', max: 3000, note: 'hourly snapshot + recent-changes files, 20000 keys' });
    add({ name: 'files.recent_series_bytes', value: snapshot.seriesBytes, unit: 'B', target: 'report', note: 'folded hour series in the work bucket, 20000 keys x 240 hours' });
  }

  // Cold start per function: bundle size and import time of the bundles synth deploys; an SDK client the
  // manifest does not allow is a failed run (that one does not depend on the machine's load).
  let unexpectedSdk = 0;
  for (const f of await benchCold()) {
    const before = COLD_BEFORE_MS[f.name];
    add({ name: `cold.${f.name}.bundle_kb`, value: round(f.bytes / 1024), unit: 'KB', target: 'report', note: f.sdk.static.map((p) => p.replace('@aws-sdk/', '')).join(' ') });
    add({
      name: `cold.${f.name}.init_ms`,
      value: round(f.initMs),
      unit: 'ms',
      target: before.halve ? `<= ${round(before.ms / 2)}` : 'report',
      max: before.halve ? before.ms / 2 : undefined,
      note: `import of the bundle in a fresh Node process, median of 7 (before: ${before.ms} ms)${f.extra.length > 0 ? `; NOT ALLOWED: ${f.extra.join(' ')}` : ''}`,
    });
    unexpectedSdk += f.extra.length;
  }

  // The cost model's units (`npm run cost`): with `--cost`, as it simulates 30 days (`--cost-days N` fewer).
  if (process.argv.includes('--cost')) {
    const { benchCostUnits } = await import('./cost-units');
    const days = process.argv.indexOf('--cost-days');
    for (const f of await benchCostUnits(days > 0 ? Number(process.argv[days + 1]) : 30)) add({ ...f, target: 'report' });
  }

  const at = process.argv.indexOf('--json');
  if (at > 0 && process.argv[at + 1]) {
    writeFileSync(process.argv[at + 1], `${JSON.stringify(figures.map(({ name, value, unit, target }) => ({ name, value, unit, target })), null, 2)}\n`);
    console.log(`figures written to ${process.argv[at + 1]}`);
  }
  if (unexpectedSdk > 0) {
    console.error(`${unexpectedSdk} SDK client import(s) the manifest does not allow (cold.*: NOT ALLOWED)`);
    process.exitCode = 1;
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
