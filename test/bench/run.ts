/**
 * `npm run bench`: every figure the issues ask for, measured in one run, printed as one table with its
 * target. `npm run bench -- --json PATH` also writes `[{name, value, unit, target}]` to PATH (a missing
 * figure's value is null) and `--markdown PATH` the run as one Markdown table headed by its date, commit and load
 * (docs/figures.md keeps the last whole run's); `--cost` adds the cost model's figures (test/bench/cost-units.ts; `npm run cost --
 * --figures PATH` prices them).
 *
 * Exit code: a figure that could not be measured (its bench threw, or gave no finite number) is printed as
 * MISSING, never replaced by another figure, and makes the run exit 1; so does a function bundle importing an
 * SDK client its manifest access does not allow (not a timing). A run where every figure was measured exits 0
 * even when a target is missed: a missed target is printed (MISSED), so a busy machine cannot fail a build,
 * but a broken bench can.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { FUNCTIONS } from '../../shared/topology';
import { benchCold, COLD_BEFORE_MS, type ColdFigures } from './cold';
import { benchCostUnits } from './cost-units';
import { describeStats, formatSpread } from './cpu-sample';
import { benchValidation } from './engine';
import { inFreshProcess } from './fresh-process';
import { describeFresh } from './fresh-samples';
import { benchLighthouse } from './lighthouse';
import { benchFanout, benchSnapshotFiles } from './live';
import { benchMergeCost } from './merge-cost';
import type { benchMergeCpu } from './merge-cpu';
import { benchPosterCost } from './poster-cost';
import { benchReads } from './reads';
import { type Figure, FigureReport, renderMarkdown } from './report';
import { benchScale, SCALE_FIGURES } from './scale';

/** Issue 27 point 4's bar for every function's `cold.<fn>.init_ms`. */
const COLD_INIT_MAX_MS = 60;

/** Every figure the run must print, in order; any left unprinted is reported MISSING. */
const FIGURES = [
  'validate.ratio_to_json_parse',
  'merge.cpu_ms',
  'merge.write_units',
  'merge.per_row_write_units',
  'merge.end_to_end_ms',
  'read.item_read_units',
  'read.item_read_units_warm',
  'read.item_read_units_new',
  'read.item_p50_ms',
  'read.item_page_read_units',
  'read.history_ms',
  'read.history_cold_ms',
  'read.intraday_ms',
  'read.intraday_cold_ms',
  'live.fanout_2000_ms',
  'live.fanout_2000_service_ms',
  'live.poster_cpu_ratio',
  'files.snapshot_ms',
  'files.snapshot_cold_ms',
  'files.recent_series_bytes',
] as const;

/** Lighthouse's scores of the website's pages (issue 24 point 9). */
const SITE_PAGES = ['home', 'item', 'alerts'] as const;
const SITE_FIGURES = SITE_PAGES.flatMap((p) => [`site.lighthouse.${p}.performance`, `site.lighthouse.${p}.accessibility`]);

/** Cold start per function (the bundles synth deploys): bundle size and import time. */
const COLD_FIGURES = FUNCTIONS.flatMap((f) => [`cold.${f.name}.bundle_kb`, `cold.${f.name}.init_ms`]);

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

async function main(): Promise<number> {
  const started = new Date();
  const loadStart = loadavg()[0];
  const report = new FigureReport([...FIGURES, ...SCALE_FIGURES, ...COLD_FIGURES, ...SITE_FIGURES]);
  const add = (f: Figure) => report.add(f);
  const section = (names: readonly string[], run: () => Promise<void> | void) =>
    report.section(names, async () => {
      try {
        await run();
      } catch (err) {
        console.error(err);
        throw err;
      }
    });

  await section(['validate.ratio_to_json_parse'], async () => {
    const v = await benchValidation();
    add({
      name: 'validate.ratio_to_json_parse',
      value: round(v.ratio, 2),
      unit: 'x',
      target: '<= 2.5',
      max: 2.5,
      note: `200000 entries; ours ${describeStats(v.ours)}; JSON.parse ${describeStats(v.bare)}`,
    });
  });

  await section(['merge.cpu_ms'], async () => {
    // In a process of its own, as a merge instance is: not after the other sections' heaps (fresh-process.ts).
    const m = await inFreshProcess<Awaited<ReturnType<typeof benchMergeCpu>>>('merge-cpu.ts', 'benchMergeCpu');
    const ratio = m.merge.thread.median / m.floor.thread.median;
    add({
      name: 'merge.cpu_ms',
      value: round(m.merge.thread.median),
      unit: 'ms',
      target: '<= 130 (stretch <= 90)',
      max: 130,
      note: `production mergeBook, ${m.entries} entries, ${m.keys} keys, main-thread CPU, steady state, in a process of its own, the merge Lambda's own production clients reaching DynamoDB Local and s3rver directly (what the Lambda pays): ${describeStats(m.merge)}; the same merges through the local AWS edge (the edge's side of every call counted too, which on AWS is AWS's): ${describeStats(m.viaEdge)}, the edge's share ${round(m.viaEdge.thread.median - m.merge.thread.median)} ms; after another instance's merge (from the store): ${formatSpread(m.fromStore.thread)} directly, ${formatSpread(m.fromStoreViaEdge.thread)} through the edge; floor (gunzip + JSON.parse + per-key loop of the same book) ${describeStats(m.floor)}; ${round(ratio)}x the floor`,
    });
  });

  await section(['merge.write_units', 'merge.per_row_write_units', 'merge.end_to_end_ms'], async () => {
    const c = await benchMergeCost();
    add({
      name: 'merge.write_units',
      value: round(c.writeUnits),
      unit: 'WCU',
      target: '<= 600',
      max: 600,
      note: `${c.entries} entries, ${c.keys} keys, after a previous book`,
    });
    add({
      name: 'merge.per_row_write_units',
      value: round(c.perRowWriteUnits),
      unit: 'WCU',
      target: '>= 50x',
      note: `${round(c.factor)}x the packed layout (item-size formula, not executed)`,
    });
    add({
      name: 'merge.end_to_end_ms',
      value: round(c.endToEndMs),
      unit: 'ms',
      target: 'report',
      note: `upload → merged through the local runtime (upload alone ${round(c.uploadMs)} ms)`,
    });
  });

  await section(
    [
      'read.item_read_units',
      'read.item_read_units_warm',
      'read.item_read_units_new',
      'read.item_p50_ms',
      'read.item_page_read_units',
      'read.history_ms',
      'read.history_cold_ms',
      'read.intraday_ms',
      'read.intraday_cold_ms',
    ],
    async () => {
      const r = await benchReads();
      add({
        name: 'read.item_read_units',
        value: round(r.itemReadUnits),
        unit: 'RCU',
        target: '<= 15',
        max: 15,
        note: `single-item answer (row + ${r.days} days + volume), 20000-key market, each from a fresh instance`,
      });
      add({
        name: 'read.item_read_units_warm',
        value: round(r.itemReadUnitsWarm),
        unit: 'RCU',
        target: 'report',
        note: `the same answers again from a warm instance (read caches), p50 ${round(r.itemP50MsWarm)} ms`,
      });
      add({
        name: 'read.item_read_units_new',
        value: round(r.itemReadUnitsNewItem),
        unit: 'RCU',
        target: 'report',
        note: `items a warm instance has not read, of history shards it has not read; of history shards it has read: ${round(r.itemReadUnitsNeighbour)} RCU, p50 ${round(r.itemP50MsNeighbour)} ms`,
      });
      add({ name: 'read.item_p50_ms', value: round(r.itemP50Ms), unit: 'ms', target: '<= 50', max: 50, note: 'through the local runtime' });
      add({
        name: 'read.item_page_read_units',
        value: round(r.itemPageReadUnits),
        unit: 'RCU',
        target: 'report',
        note: `anonymous item page (hourly answer + 48 hour candles), p50 ${round(r.itemPageP50Ms)} ms`,
      });
      add({
        name: 'read.history_ms',
        value: round(r.historyMs),
        unit: 'ms',
        target: '<= 400',
        max: 400,
        note: `30 days, all items, live, asked again before the next merge (its answers/ file reused; plain; ${round(r.historyGzipMs)} ms to a client taking gzip; a warm instance right after a merge ${round(r.historyRebuiltMs)} ms)`,
      });
      add({
        name: 'read.history_cold_ms',
        value: round(r.historyColdMs),
        unit: 'ms',
        target: '<= 1000',
        max: 1000,
        note: `30 days, all items, first answer of a fresh instance after a merge (nothing in memory; final days' fragments stored by an earlier answer), ${describeFresh(r.historyColdSamples)}, the API's part (to the 303) ${round(r.historyColdApiMs)} ms; the market's first answer ever ${round(r.historyFirstMs)} ms`,
      });
      add({ name: 'read.intraday_ms', value: round(r.intradayMs), unit: 'ms', target: '<= 1000', max: 1000, note: '24 hours, all items, warm' });
      add({
        name: 'read.intraday_cold_ms',
        value: round(r.intradayColdMs),
        unit: 'ms',
        target: '<= 300',
        max: 300,
        note: `24 hours, all items, first answer of a fresh instance after a merge (hours' fragments stored by an earlier answer), ${describeFresh(r.intradayColdSamples)}; the first answer ever ${round(r.intradayFirstMs)} ms`,
      });
    },
  );

  await section(['live.fanout_2000_ms', 'live.fanout_2000_service_ms'], async () => {
    const f = await benchFanout();
    add({
      name: 'live.fanout_2000_ms',
      value: round(f.ms),
      unit: 'ms',
      target: '<= 300',
      max: 300,
      note: `merge → last of ${f.sockets} distinct sockets receives the merge's \`ah\`: stream wait ${round(f.streamWaitMs)} ms (the local poll, every 250 ms as Lambda polls a shard) + fan-out ${round(f.serviceMs)} ms`,
    });
    add({
      name: 'live.fanout_2000_service_ms',
      value: round(f.serviceMs),
      unit: 'ms',
      target: '<= 300',
      max: 300,
      note: "the service's part: the stream's consumer invoked with the merge record → the last socket's `ah` (local gateway and clients on the same 2 cores)",
    });
  });

  await section(['live.poster_cpu_ratio'], async () => {
    const c = await benchPosterCost();
    add({
      name: 'live.poster_cpu_ratio',
      value: round(c.posterMs / c.sdkMs, 2),
      unit: 'x',
      target: '<= 0.5',
      max: 0.5,
      note: `${c.sockets} posts through an in-memory handler; poster ${describeStats(c.poster)}; SDK command ${describeStats(c.sdk)}`,
    });
  });

  await section(['files.snapshot_ms', 'files.snapshot_cold_ms', 'files.recent_series_bytes'], async () => {
    const s = await benchSnapshotFiles();
    add({
      name: 'files.snapshot_ms',
      value: round(s.ms),
      unit: 'ms',
      target: '<= 1000',
      max: 1000,
      note: 'hourly snapshot + recent-changes files, 20000 keys, steady hour (series stored)',
    });
    add({
      name: 'files.snapshot_cold_ms',
      value: round(s.coldMs),
      unit: 'ms',
      target: '<= 1500',
      max: 1500,
      note: 'the same, first run of a market with no stored series',
    });
    add({
      name: 'files.recent_series_bytes',
      value: s.seriesBytes,
      unit: 'B',
      target: 'report',
      note: 'folded hour series in the work bucket, 20000 keys, 240 hours of candles (168 kept whole, one older point per key)',
    });
  });

  // Scale past one machine (issue 27 point 5): simulations here, the limits on paper (scripts/cost/scale.ts).
  await section(SCALE_FIGURES, async () => {
    for (const f of await benchScale()) add(f);
  });

  // Cold start per function: bundle size and import time of the bundles synth deploys; an SDK client the
  // manifest does not allow is a failed run (that one does not depend on the machine's load).
  let unexpectedSdk = 0;
  let cold: ColdFigures[] = [];
  await section(COLD_FIGURES, async () => {
    cold = await benchCold();
  });
  for (const f of cold) {
    const before = COLD_BEFORE_MS[f.name];
    add({
      name: `cold.${f.name}.bundle_kb`,
      value: round(f.bytes / 1024),
      unit: 'KB',
      target: 'report',
      note: `${round(f.initBytes / 1024)} KB loaded at init; ${f.sdk.static.map((p) => p.replace('@aws-sdk/', '')).join(' ')}`,
    });
    add({
      name: `cold.${f.name}.init_ms`,
      value: round(f.initMs),
      unit: 'ms',
      // Issue 27 point 4: every function's init at most 60 ms, below issue 12's "half of before" for each.
      target: `<= ${COLD_INIT_MAX_MS}`,
      max: COLD_INIT_MAX_MS,
      note: `import of the bundle in a fresh Node process, median of 7 (before: ${before.ms} ms)${f.extra.length > 0 ? `; NOT ALLOWED: ${f.extra.join(' ')}` : ''}`,
    });
    unexpectedSdk += f.extra.length;
  }

  await section(SITE_FIGURES, async () => {
    for (const p of await benchLighthouse()) {
      const note = `${p.url.replace(/^https?:\/\/[^/]+/, '')}, Lighthouse 12 defaults (phone, simulated throttling)`;
      add({ name: `site.lighthouse.${p.page}.performance`, value: p.performance, unit: 'score', target: '>= 90', min: 90, note });
      add({
        name: `site.lighthouse.${p.page}.accessibility`,
        value: p.accessibility,
        unit: 'score',
        target: '>= 100',
        min: 100,
        note: p.failing.length > 0 ? `failing: ${p.failing.join(' ')}` : note,
      });
    }
  });

  // The cost model's units (`npm run cost`): with `--cost`, as it simulates 30 days (`--cost-days N` fewer).
  if (process.argv.includes('--cost')) {
    const days = process.argv.indexOf('--cost-days');
    for (const f of await benchCostUnits(days > 0 ? Number(process.argv[days + 1]) : 30)) report.addExtra({ ...f, target: 'report' });
  }

  const code = report.finish();
  const missing = report.missing;
  const figures = report.figures;

  const at = process.argv.indexOf('--json');
  if (at > 0 && process.argv[at + 1]) {
    writeFileSync(
      process.argv[at + 1],
      `${JSON.stringify(
        figures.map(({ name, value, unit, target }) => ({ name, value, unit, target })),
        null,
        2,
      )}\n`,
    );
    console.log(`figures written to ${process.argv[at + 1]}`);
  }
  const md = process.argv.indexOf('--markdown');
  if (md > 0 && process.argv[md + 1]) {
    let commit = 'unknown (not a git checkout)';
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {}
    const facts = { started, ended: new Date(), commit, node: process.version, loadStart, loadEnd: loadavg()[0], cpus: cpus().length };
    writeFileSync(process.argv[md + 1], renderMarkdown(report.rows, facts));
    console.log(`figures table written to ${process.argv[md + 1]}`);
  }
  if (missing.length > 0) console.error(`MISSING ${missing.length} figure(s): ${missing.join(', ')}`);
  if (unexpectedSdk > 0) console.error(`${unexpectedSdk} SDK client imports the manifest does not allow (cold.*: NOT ALLOWED)`);
  return unexpectedSdk > 0 ? 1 : code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
