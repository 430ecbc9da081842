/**
 * Market read figures on the local runtime (issue 5): read units and p50 latency of a single-item answer,
 * and the wall time of a 30-day history and a 24-hour intraday answer, for a 20000-key market, each cold (the
 * first answer of this process: no finished day or hour kept in memory yet) and warm (median of the repeats).
 *
 * The market is filled straight through the store with the pure merge rules (not through uploads, which would
 * take many minutes for 90 days of books): 90 days (spec Retention's full history, so an item's history shard
 * has its full-retention size) of three generated books a day (two an hour apart, so volume estimates exist), the last 24 hours one book an hour, the rows of every book merged in order, the scan and
 * merge logs, META, then the day history compacted as the seal job does. Read units come from
 * `ReturnConsumedCapacity` (DynamoDB Local applies AWS's rules), summed over every read a request makes.
 * Run alone with `npx tsx test/bench/reads.ts`; the bench runner calls `benchReads()`.
 */
import { pathToFileURL } from 'node:url';
import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, dayOf, HOUR_MS, hourOf, type ManualClock } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import type { Book } from '../../shared/domain/book';
import { deriveScan } from '../../shared/domain/derived-scan';
import { mergeScan, type RowTable } from '../../shared/domain/merge';
import { compactHistories } from '../../shared/market/history-compaction';
import { clearReadCaches } from '../../shared/market/read-cache';
import { HISTORY_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import { MarketStore } from '../../shared/store/market-store';
import { MergeLog } from '../../shared/store/merge-log';
import { ScanLog } from '../../shared/store/scan-log';
import { buildPages, emptyPages, writePages } from '../support/market-fill';
import { services } from '../support/operator';
import { countReadUnits } from '../support/read-units';
import { describeFresh, sampleFresh } from './fresh-samples';

export interface ReadFigures {
  /** Days of history the market was filled with. */
  days: number;
  /** Mean read units of a live single-item answer (row, its history shard of 90 days, recent days, volume), premium caller, each from a fresh instance (read caches cleared). */
  itemReadUnits: number;
  /** The same answers again from a warm instance (the read caches hold what the first pass read, market unchanged). */
  itemReadUnitsWarm: number;
  /** A warm instance's answer for an item it has not read before, of a history shard it has not read (page shards cached). */
  itemReadUnitsNewItem: number;
  /** The same for items of history shards it has read (page and history shards cached, the item's history decoded from its shard). */
  itemReadUnitsNeighbour: number;
  itemP50MsNeighbour: number;
  itemP50MsWarm: number;
  /** p50 ms of that answer through the local runtime (HTTP, admission, reads). */
  itemP50Ms: number;
  /** Mean read units of an anonymous (hourly view) single-item answer computed afresh (first of its hour). */
  itemReadUnitsHourly: number;
  /** p50 ms of those first-of-the-hour anonymous answers. */
  itemP50MsHourly: number;
  /** An anonymous item page (`/item/<key>?m=`), each key asked once. */
  itemPageReadUnits: number;
  itemPageP50Ms: number;
  /** Median ms of the history answer, 30 days, every item, with volume, asked again before the next merge (its file reused). */
  historyMs: number;
  /**
   * The first history answer of a fresh function after a merge (nothing in memory; final days' fragments stored
   * by an earlier answer): the median of `FRESH_SAMPLES` such instances, each after its own merge (fresh-samples.ts).
   */
  historyColdMs: number;
  /** Every cold sample behind historyColdMs, in the order taken. */
  historyColdSamples: number[];
  /** The market's first history answer ever (every day read and decoded, final days' fragments stored). */
  historyFirstMs: number;
  historyBytes: number;
  /** The API's part of historyMs and historyColdMs (medians): to the 303 (the rest is the file host's download of the file). */
  historyApiMs: number;
  historyColdApiMs: number;
  /** A warm function's history answer right after a merge (days kept in memory, the answer and its file made again). */
  historyRebuiltMs: number;
  /** The same warm history answer to a client that accepts gzip (compressed at level 1, inflated by the client). */
  historyGzipMs: number;
  /** Median ms of the intraday answer, 24 hours, every item (a warm function: unchanged hours kept). */
  intradayMs: number;
  /** The first intraday answer of a fresh function after a merge (hours' fragments stored by an earlier answer), median of `FRESH_SAMPLES`. */
  intradayColdMs: number;
  intradayColdSamples: number[];
  /** The market's first intraday answer ever (every hour read and decoded). */
  intradayFirstMs: number;
  intradayBytes: number;
}

export const MARKET = 'forever.rp.horde.us';
const KEYS = 20_000;
export const NOW = Date.UTC(2026, 10, 2, 10, 30, 0);

/** Days of history the market holds: spec Retention keeps 90, so the single-item answer reads a full shard. */
export const HISTORY_DAYS = 90;

/**
 * Fills the market: `days` days of day pages and volume (three books a day), 24 hourly books, rows, logs and
 * META, then compaction (days up to the newest final one go into the history shards). Books are generated and
 * folded one at a time: 90 days of 60000-entry books do not fit in memory at once. Returns the keys.
 */
export async function fill(rt: { clock: ManualClock }, days: number): Promise<number[]> {
  const svc = services();
  const t = { ddb: svc.ddb, table: svc.config.tableName, clock: svc.clock };
  const today = dayOf(NOW);
  const firstDay = today - days;
  const gen = new MarketGenerator({ keys: KEYS, entries: 60_000, seed: 21, market: MARKET, start: firstDay * DAY_MS + 6 * HOUR_MS });
  const times: number[] = [];
  for (let d = firstDay; d < today; d++) {
    const hours = d === today - 1 ? [6, 7, 18, ...Array.from({ length: 24 - 11 }, (_, i) => 11 + i).filter((h) => h !== 18)] : [6, 7, 18];
    for (const h of hours.sort((a, b) => a - b)) times.push(d * DAY_MS + h * HOUR_MS + 5 * 60_000);
  }
  for (let h = 0; h <= hourOf(NOW) - today * 24; h++) times.push(today * DAY_MS + h * HOUR_MS + 5 * 60_000);

  const rows: RowTable = new Map();
  const scans = new ScanLog(svc.ddb, svc.config.tableName, svc.clock);
  const merges = new MergeLog(svc.ddb, svc.config.tableName);
  const pages = emptyPages();
  let previous: Book | null = null;
  let seq = 0;
  let firstAt = 0;
  for (const at of times) {
    const book = gen.nextBook({ at });
    firstAt ||= book.at;
    previous = buildPages([book], ['h1', 'd1'], pages, previous).last;
    // Hour pages are kept 14 days; only the last day's matter here.
    for (const h of [...pages.candles.h1.keys()]) if (h < hourOf(NOW) - 30) pages.candles.h1.delete(h);
    const scan = deriveScan(book);
    const mergedAt = book.at + 60_000;
    mergeScan(rows, scan, 'bench', mergedAt);
    seq++;
    await scans.put({ market: MARKET, at: book.at, items: scan.items.length, complete: true, credited: true, uploader: `u${seq % 7}`, mergedAt }, `b${seq}`);
    await merges.put({ market: MARKET, seq, at: book.at, mergedAt, changePath: `live/v1/${MARKET}/${seq}-x.json.gz`, bookAt: book.at });
  }
  await writePages(t, MARKET, pages);
  const store = new MarketStore(svc.ddb, svc.config.tableName);
  await store.writeRows(MARKET, rows, rows.keys());
  await store.commitMeta({ ...(await store.meta(MARKET)), seq, newestScanAt: previous?.at ?? null, firstMergeAt: firstAt + 60_000 }, 0);
  rt.clock.set(NOW);
  // At full retention a history shard must still fit one DynamoDB item: if it does not, every read figure
  // here would be of a market production cannot hold, so the section fails (its figures are MISSING).
  const compacted = await compactHistories(svc, MARKET, today).catch((err: unknown) => {
    throw new Error(
      `history compaction of ${days} days failed (${err instanceof Error ? err.message : String(err)}): a history shard of this market does not fit one item at full retention`,
    );
  });
  if (compacted.days.length < days - 2) throw new Error(`compaction folded ${compacted.days.length} days, expected ${days - 2}`);
  return gen.keys;
}

/**
 * A merge that changed no page (a book equal to the last one): the market's seq and merge log move on, so live
 * answers are made again (their files are shared until the next merge) and today's pages are read again.
 */
async function nextMerge(svc: ReturnType<typeof services>): Promise<void> {
  const store = new MarketStore(svc.ddb, svc.config.tableName);
  const meta = await store.meta(MARKET);
  const seq = meta.seq + 1;
  const at = NOW - 60_000;
  await new MergeLog(svc.ddb, svc.config.tableName).put({
    market: MARKET,
    seq,
    at,
    mergedAt: NOW,
    changePath: `live/v1/${MARKET}/${seq}-x.json.gz`,
    bookAt: at,
  });
  if (!(await store.commitMeta({ ...meta, seq }, meta.seq))) throw new Error('bench merge lost its commit');
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];

export async function benchReads(): Promise<ReadFigures> {
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: NOW - (HISTORY_DAYS + 1) * DAY_MS, log: false });
  try {
    const keys = await fill(rt as unknown as { clock: ManualClock }, HISTORY_DAYS);
    const svc = services();
    const reads = countReadUnits(svc.ddb, 'benchReadCapacity');
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${rt.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json()) as Record<string, string>;
    const user = await post('/_local/users', { plan: 'premium' });
    const { token } = await post('/_local/sessions', { userId: user.id, expiresIn: 86_400 });
    // The figures are for a client that does not ask for gzip (the answer as built); gzip is measured beside them.
    // A 303 to an answer file is followed as a client does; `apiMs` is the API's part (to the redirect).
    const get = async (path: string, auth?: string, encoding = 'identity'): Promise<{ ms: number; apiMs: number; units: number; bytes: number }> => {
      reads.take();
      const t0 = performance.now();
      let res = await fetch(`${rt.base}${path}`, {
        redirect: 'manual',
        headers: auth
          ? { authorization: `Bearer ${auth}`, 'accept-encoding': encoding }
          : { 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
      });
      const apiMs = performance.now() - t0;
      if (res.status === 303) {
        await res.arrayBuffer();
        res = await fetch(res.headers.get('location') ?? '', { headers: { 'accept-encoding': encoding } });
      }
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
      return { ms, apiMs, units: reads.take(), bytes: text.length };
    };
    const sample = (n: number, salt: number) => Array.from({ length: n }, (_, i) => keys[(i * 7919 + salt) % keys.length]);

    await get(`/api/v1/ah/${MARKET}/${keys[0]}`, token);
    // Each answer from a fresh instance: nothing an earlier read kept (pages, history shards, the compaction mark).
    const live = [];
    for (const key of sample(40, 1)) {
      clearReadCaches();
      live.push(await get(`/api/v1/ah/${MARKET}/${key}`, token));
    }
    // The same answers from a warm instance: two passes fill the caches (a page is cached when an instance
    // misses it a second time: page-cache.ts), the next is measured.
    for (let pass = 0; pass < 2; pass++) for (const key of sample(40, 1)) await get(`/api/v1/ah/${MARKET}/${key}`, token);
    const warm = [];
    for (const key of sample(40, 1)) warm.push(await get(`/api/v1/ah/${MARKET}/${key}`, token));
    // Items not read before by the same warm instance: their page shards are cached (40 keys touched nearly
    // every one of the 16 key shards). Those of history shards no read touched read their history shard; those
    // of touched history shards decode it from the cache.
    const seen = new Set(sample(40, 1));
    const seenHistory = new Set([...seen].map((k) => shardOf(k, HISTORY_SHARDS)));
    const unseen = sample(400, 3).filter((k) => !seen.has(k));
    const newItems = [];
    for (const key of unseen.filter((k) => !seenHistory.has(shardOf(k, HISTORY_SHARDS))).slice(0, 40))
      newItems.push(await get(`/api/v1/ah/${MARKET}/${key}`, token));
    const neighbours = [];
    for (const key of keys.filter((k) => !seen.has(k) && seenHistory.has(shardOf(k, HISTORY_SHARDS))).slice(0, 40))
      neighbours.push(await get(`/api/v1/ah/${MARKET}/${key}`, token));
    // Anonymous answers: each key asked once, so each is the first of its hour (computed, then stored).
    const hourly = [];
    for (const key of sample(40, 5)) hourly.push(await get(`/api/v1/ah/${MARKET}/${key}`));
    // Anonymous item pages (the pages function): the hourly answer, the item's hour candles of the last 48 hours.
    const pages = [];
    for (const key of sample(20, 9)) pages.push(await get(`/item/${key}?m=${MARKET}`));

    // The first answer ever of the market computes and stores every final day's fragment (once per day in
    // production, by whichever instance first answers it); cold is then a fresh instance's first answer.
    // Cold answers come after a merge (nextMerge): a live answer's file is shared until the market's next merge
    // (answer-files.ts liveUntilMerge), so without one a fresh instance would only be sent to the first's file.
    const historyFirst = await get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, token);
    // Each cold sample is a fresh instance after a merge; the figure is their median (fresh-samples.ts).
    const historyCold = await sampleFresh(
      async () => {
        clearReadCaches();
        await nextMerge(svc);
      },
      () => get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, token),
    );
    // Asked again before the next merge (the last cold sample's file reused).
    const history = [];
    for (let i = 0; i < 3; i++) history.push(await get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, token));
    // A warm instance's answer after a merge: kept days, the file written again.
    const historyRebuilt = [];
    for (let i = 0; i < 3; i++) {
      await nextMerge(svc);
      historyRebuilt.push(await get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, token));
    }
    const historyGzip = [];
    for (let i = 0; i < 3; i++) historyGzip.push(await get(`/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, token, 'gzip'));
    const intradayFirst = await get(`/api/v1/ah/${MARKET}/intraday`, token);
    const intradayCold = await sampleFresh(
      async () => {
        clearReadCaches();
        await nextMerge(svc);
      },
      () => get(`/api/v1/ah/${MARKET}/intraday`, token),
    );
    const intraday = [];
    for (let i = 0; i < 3; i++) intraday.push(await get(`/api/v1/ah/${MARKET}/intraday`, token));
    const mean = (list: Array<{ units: number }>) => list.reduce((s, r) => s + r.units, 0) / list.length;
    return {
      days: HISTORY_DAYS,
      itemReadUnits: mean(live),
      itemP50Ms: median(live.map((r) => r.ms)),
      itemReadUnitsWarm: mean(warm),
      itemP50MsWarm: median(warm.map((r) => r.ms)),
      itemReadUnitsNewItem: mean(newItems),
      itemReadUnitsNeighbour: mean(neighbours),
      itemP50MsNeighbour: median(neighbours.map((r) => r.ms)),
      itemReadUnitsHourly: mean(hourly),
      itemP50MsHourly: median(hourly.map((r) => r.ms)),
      itemPageReadUnits: mean(pages),
      itemPageP50Ms: median(pages.map((r) => r.ms)),
      historyMs: median(history.map((r) => r.ms)),
      historyColdMs: historyCold.median,
      historyColdSamples: historyCold.samples.map((r) => r.ms),
      historyFirstMs: historyFirst.ms,
      historyBytes: history[0].bytes,
      historyGzipMs: median(historyGzip.map((r) => r.ms)),
      historyRebuiltMs: median(historyRebuilt.map((r) => r.ms)),
      historyApiMs: median(history.map((r) => r.apiMs)),
      historyColdApiMs: median(historyCold.samples.map((r) => r.apiMs)),
      intradayMs: median(intraday.map((r) => r.ms)),
      intradayColdMs: intradayCold.median,
      intradayColdSamples: intradayCold.samples.map((r) => r.ms),
      intradayFirstMs: intradayFirst.ms,
      intradayBytes: intraday[0].bytes,
    };
  } finally {
    await rt.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const t0 = performance.now();
  const f = await benchReads();
  console.log(`market reads (${KEYS} keys, ${f.days} days of history; ${((performance.now() - t0) / 1000).toFixed(0)} s with the fill)`);
  console.log(`  single item, live:   ${f.itemReadUnits.toFixed(1)} RCU (target <= 15), p50 ${f.itemP50Ms.toFixed(1)} ms (target <= 50), fresh instance`);
  console.log(`  single item, warm:   ${f.itemReadUnitsWarm.toFixed(1)} RCU, p50 ${f.itemP50MsWarm.toFixed(1)} ms (the same answers again, read caches warm)`);
  console.log(`  single item, new:    ${f.itemReadUnitsNewItem.toFixed(1)} RCU (items not read before by a warm instance, their history shard read)`);
  console.log(
    `  single item, nearby: ${f.itemReadUnitsNeighbour.toFixed(1)} RCU, p50 ${f.itemP50MsNeighbour.toFixed(1)} ms (items not read before, their history shard cached)`,
  );
  console.log(`  single item, hourly: ${f.itemReadUnitsHourly.toFixed(1)} RCU, p50 ${f.itemP50MsHourly.toFixed(1)} ms (first answer of the hour)`);
  console.log(`  item page:           ${f.itemPageReadUnits.toFixed(1)} RCU, p50 ${f.itemPageP50Ms.toFixed(1)} ms (anonymous)`);
  console.log(
    `  history 30 days:     ${f.historyMs.toFixed(0)} ms warm (target <= 400), ${f.historyColdMs.toFixed(0)} ms cold after a merge (target <= 1000; ${describeFresh(f.historyColdSamples)}), ${f.historyRebuiltMs.toFixed(0)} ms warm after a merge, ${f.historyFirstMs.toFixed(0)} ms first ever, ${(f.historyBytes / 1e6).toFixed(1)} MB; ${f.historyGzipMs.toFixed(0)} ms gzip; the API's part (to the 303): warm ${f.historyApiMs.toFixed(0)} ms, cold ${f.historyColdApiMs.toFixed(0)} ms`,
  );
  console.log(
    `  intraday 24 hours:   ${f.intradayMs.toFixed(0)} ms warm, ${f.intradayColdMs.toFixed(0)} ms cold after a merge (target <= 300; ${describeFresh(f.intradayColdSamples)}), ${f.intradayFirstMs.toFixed(0)} ms first ever, ${(f.intradayBytes / 1e6).toFixed(1)} MB`,
  );
  process.exit(0);
}
