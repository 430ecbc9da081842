/**
 * Whole-market reads A/B in one process (issue 27 point 3), on the bench market of reads.ts (20000 keys, 90
 * days): a fresh instance's history (30 days) and intraday (24 hours) answers built from the pages (no stored
 * fragments: what every fresh instance did before) against the same answers with the fragments an earlier
 * answer stored, alternated round by round so both see the same load; then the warm answers. The answers are
 * checked byte-identical. Not part of `npm run bench` (its figures are reads.ts'); run alone with
 * `npx tsx test/bench/history-ab.ts [rounds]`.
 */
import { execSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, dayOf, hourOf, type ManualClock } from '../../shared/clock';
import { marketHistory, marketIntraday } from '../../shared/market/market-read';
import { clearReadCaches } from '../../shared/market/read-cache';
import { type ReadSources, readSources } from '../../shared/market/sources';
import { services } from '../support/operator';
import { fill, HISTORY_DAYS, MARKET, NOW } from './reads';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];

async function timed(run: () => Promise<{ text: string }>): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const { text } = await run();
  return { ms: performance.now() - t0, text };
}

export async function historyAB(rounds: number): Promise<Record<string, number[]>> {
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: NOW - (HISTORY_DAYS + 1) * DAY_MS, log: false });
  try {
    await fill(rt as unknown as { clock: ManualClock }, HISTORY_DAYS);
    const svc = services();
    const withFragments = readSources(svc);
    const fromPages: ReadSources = { ...withFragments, fragments: undefined };
    const from = dayOf(NOW) - 30;
    const history = (src: ReadSources) => () => marketHistory(src, MARKET, from, NOW, { withVolume: true });
    const intraday = (src: ReadSources) => () => marketIntraday(src, MARKET, hourOf(NOW) - 23, hourOf(NOW));
    // The first answers store the fragments.
    const reference = (await history(withFragments)()).text;
    const referenceIntraday = (await intraday(withFragments)()).text;
    const out: Record<string, number[]> = {
      historyPages: [],
      historyFragments: [],
      historyWarm: [],
      intradayPages: [],
      intradayFragments: [],
      intradayWarm: [],
    };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['Pages', 'Fragments'] as const) : (['Fragments', 'Pages'] as const);
      for (const v of order) {
        const src = v === 'Pages' ? fromPages : withFragments;
        clearReadCaches();
        const h = await timed(history(src));
        if (h.text !== reference) throw new Error(`history from ${v} differs`);
        out[`history${v}`].push(h.ms);
        clearReadCaches();
        const i = await timed(intraday(src));
        if (i.text !== referenceIntraday) throw new Error(`intraday from ${v} differs`);
        out[`intraday${v}`].push(i.ms);
      }
      out.historyWarm.push((await timed(history(withFragments))).ms);
      out.intradayWarm.push((await timed(intraday(withFragments))).ms);
    }
    return out;
  } finally {
    await rt.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rounds = Number(process.argv[2] ?? 7);
  console.log(`before: ${execSync('uptime').toString().trim()}`);
  const out = await historyAB(rounds);
  console.log(`after:  ${execSync('uptime').toString().trim()}`);
  for (const [name, ms] of Object.entries(out))
    console.log(`${name.padEnd(18)} median ${median(ms).toFixed(0)} ms  (${ms.map((m) => m.toFixed(0)).join(' ')})`);
  process.exit(0);
}
