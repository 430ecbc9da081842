/**
 * Live and file-job figures through the local runtime:
 * - `benchFanout()`: ms from a merge (its merge record written) to the last of 2000 DISTINCT sockets on one
 *   market receiving that merge's `ah` (target <= 2000 ms; fewer than 2000 fails), clients in a worker thread;
 * - `benchSnapshotFiles()`: ms building and writing one hour's snapshot and recent-changes files of a
 *   20000-key market with 240 hours of hour candles (target <= 3000 ms), in the steady state (the folded
 *   recent series of the previous hour exists; the first, cold run is printed beside it).
 * Run alone with `npx tsx test/bench/live.ts`; the bench runner calls both.
 */

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator, mulberry32 } from '../../shared/demo/market-generator';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { DEFAULT_MARKET } from '../../shared/domain/market';
import type { RowTable } from '../../shared/domain/merge';
import { ROLE_LIMITS } from '../../shared/domain/roles';
import type { VolumePage } from '../../shared/domain/volume-estimate';
import { writeSnapshotFiles } from '../../shared/files/snapshot-files';
import { getWorkObject, seriesKey } from '../../shared/files/work-store';
import { publishGeneratedItems } from '../../shared/items/publish';
import type { MarketPages } from '../../shared/ports/market';
import { volumeShardsOf } from '../support/market-fill';
import { services } from '../support/operator';

const START = Date.UTC(2026, 10, 2, 0, 0, 0);
const SOCKETS = 2000;

async function post(base: string, path: string, body: unknown, token?: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, string>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * The 2000 clients live in a worker thread, as they would on other machines: the runtime's process does only
 * the service's work. The worker opens the sockets, waits for every `hello`, then reports when the last
 * DISTINCT socket heard the merge's `ah` (the one with seq `workerData.seq`): each socket counts once, however
 * many `ah` it gets, so a socket sent the message twice cannot stand in for one that got none. Times are wall
 * clock, shared by both threads; on a timeout the parent asks how many distinct sockets heard it.
 */
/** Sockets one contributor account may hold open at once (shared/domain/roles.ts `liveSockets`). */
const SOCKETS_PER_ACCOUNT = ROLE_LIMITS.contributor.liveSockets;

const CLIENTS = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const { url, tokens, perAccount, count, seq } = workerData;
let greeted = 0;
const heard = new Set();
let messages = 0;
const open = (id) => new Promise((resolve, reject) => {
  const ws = new WebSocket(url, { headers: { authorization: 'Bearer ' + tokens[Math.floor(id / perAccount)] } });
  let first = true;
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.t === 'hello' && first) { first = false; greeted++; resolve(ws); }
    else if (m.t === 'ah' && m.seq === seq) {
      messages++;
      if (!heard.has(id)) {
        heard.add(id);
        if (heard.size === count) parentPort.postMessage({ kind: 'heard', at: Date.now(), distinct: heard.size, messages });
      }
    }
  });
  ws.on('error', reject);
  ws.on('unexpected-response', (_q, res) => reject(new Error('upgrade refused: ' + res.statusCode)));
  // A socket closed before its hello (a busy machine's upgrade that timed out) fails the bench instead of hanging it.
  ws.on('close', (code) => { if (first) reject(new Error('socket ' + id + ' closed before its hello: ' + code)); });
});
parentPort.on('message', (m) => { if (m === 'count') parentPort.postMessage({ kind: 'count', distinct: heard.size, messages }); });
const sockets = [];
(async () => {
  for (let i = 0; i < count; i += 100) sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, j) => open(i + j)))));
  parentPort.postMessage({ kind: 'ready', greeted });
})().catch((err) => parentPort.postMessage({ kind: 'error', error: String(err) }));
`;

interface ClientReport {
  kind: string;
  at?: number;
  error?: string;
  greeted?: number;
  distinct?: number;
  messages?: number;
}

/**
 * Merge → the last of 2000 distinct sockets of one market receiving the merge's `ah`, in ms, split into the
 * stream's wait (merge record written → the stream's consumer invoked with it) and the service's part (that
 * invocation → the last socket's `ah`). Throws (the figure is then MISSING) when fewer than 2000 distinct
 * sockets got it within 60 s.
 */
export async function benchFanout(count = SOCKETS): Promise<{ ms: number; streamWaitMs: number; serviceMs: number; sockets: number; messages: number }> {
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: START, log: false });
  let worker: Worker | null = null;
  try {
    const base = rt.base;
    // The listeners belong to as many contributor accounts as their open-socket limit needs (a socket past an
    // account's limit is refused 429).
    const tokens: string[] = [];
    while (tokens.length * SOCKETS_PER_ACCOUNT < count) {
      const user = await post(base, '/_local/users', { plan: 'free', contributorUntil: START + 30 * DAY_MS });
      tokens.push((await post(base, '/_local/sessions', { userId: user.id, expiresIn: 86_400 })).token);
    }
    const uploader = await post(base, '/_local/users', { plan: 'free' });
    const { key } = await post(base, '/_local/api-keys', { userId: uploader.id });
    const url = `${base.replace(/^http/, 'ws')}/api/v1/live?market=${DEFAULT_MARKET}`;
    // The market has no merge yet: the upload below is its merge 1.
    const w = new Worker(CLIENTS, {
      eval: true,
      workerData: { ws: createRequire(import.meta.url).resolve('ws'), url, tokens, perAccount: SOCKETS_PER_ACCOUNT, count: count, seq: 1 },
    });
    worker = w;
    const next = (kind: string) =>
      new Promise<ClientReport>((resolve, reject) => {
        const on = (m: ClientReport) => {
          if (m.kind === 'error') reject(new Error(m.error));
          else if (m.kind === kind) {
            w.off('message', on);
            resolve(m);
          }
        };
        w.on('message', on);
      });
    const ready = await next('ready');
    if (ready.greeted !== count) throw new Error(`only ${ready.greeted} of ${count} sockets were greeted`);
    await post(base, '/_local/settle', {});
    // The merge's last write is its merge record: the fan-out's start.
    let merged = 0;
    services().ddb.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        const pk = (args.input as { Item?: { pk?: unknown } }).Item?.pk;
        if (typeof pk === 'string' && pk.endsWith('#seq') && merged === 0) merged = Date.now();
        return out;
      },
      { step: 'initialize', name: 'benchMergeRecord' },
    );
    // When the stream's consumer is handed the merge record: the stream's wait (the local poll interval here,
    // the event source mapping's on AWS, not ours) ends, the service's part (the fan-out) begins. The runtime's
    // Lambda host is private to it; the bench wraps its `invoke` to read the time, nothing else.
    let consumed = 0;
    const host = (rt as unknown as { lambdas: { invoke: (name: string, event: unknown) => Promise<unknown> } }).lambdas;
    const invoke = host.invoke.bind(host);
    host.invoke = (name, event) => {
      const records = (event as { Records?: Array<{ dynamodb?: { Keys?: { pk?: { S?: string } } } }> }).Records ?? [];
      if (consumed === 0 && records.some((r) => r.dynamodb?.Keys?.pk?.S?.endsWith('#seq'))) consumed = Date.now();
      return invoke(name, event);
    };
    const gen = new MarketGenerator({ keys: 2000, entries: 4000, seed: 5, start: START });
    const book = { ...gen.nextBook({ at: START }), market: DEFAULT_MARKET };
    const heard = next('heard');
    const uploaded = Date.now();
    await post(base, '/api/v1/ah/books', book, key);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const counted = next('count');
        w.postMessage('count');
        counted.then(
          (c) => reject(new Error(`only ${c.distinct} of ${count} distinct sockets heard the merge's ah within 60 s (${c.messages} messages)`)),
          reject,
        );
      }, 60_000);
    });
    const got = await Promise.race([heard, timeout]).finally(() => clearTimeout(timer));
    if (got.distinct !== count || !got.at) throw new Error(`only ${got.distinct} of ${count} distinct sockets heard the merge's ah`);
    if (merged === 0) throw new Error('the merge record was never written');
    if (consumed === 0) throw new Error("the stream's consumer never got the merge record");
    console.log(
      `live.fanout: ${got.at - merged} ms from the merge record (stream wait ${consumed - merged} ms, fan-out ${got.at - consumed} ms), ${got.at - uploaded} ms from the upload request, ${got.distinct} distinct sockets, ${got.messages} ah messages`,
    );
    return { ms: got.at - merged, streamWaitMs: consumed - merged, serviceMs: got.at - consumed, sockets: got.distinct, messages: got.messages ?? 0 };
  } finally {
    // The runtime first: it drops its sockets without a `$disconnect` each, then the clients go.
    await rt.close();
    await worker?.terminate();
  }
}

const HOURS = 240;
const DAYS = 10;

/** A 20000-key market with rows, 240 hours of hour candles, 10 days of day candles and volume: written page by page. */
export async function seedMarket(store: MarketPages, market: string, hour: number): Promise<number[]> {
  const gen = new MarketGenerator({ keys: 20_000, entries: 20_000, seed: 3, start: (hour - HOURS) * HOUR_MS });
  const keys = gen.keys;
  const rand = mulberry32(9);
  const base = new Map(keys.map((k) => [k, 100 + Math.floor(rand() * 5_000_000)]));
  const priceAt = (k: number, h: number) => Math.max(1, Math.round((base.get(k) as number) * (1 + 0.2 * Math.sin(h / 13 + (k % 97)))));
  const candle = (price: number, q: number, openAt: number, lastAt: number): Candle => ({
    open: price,
    high: Math.round(price * 1.05),
    low: Math.round(price * 0.97),
    close: price,
    quantity: q,
    openAt,
    lastAt,
  });
  const pages: Array<Promise<void>> = [];
  const flush = async () => {
    await Promise.all(pages.splice(0));
  };
  for (let h = hour - HOURS; h < hour; h++) {
    const page: CandlePage = new Map();
    for (const k of keys) page.set(k, candle(priceAt(k, h), 1 + (k % 40), h * HOUR_MS + 60_000, h * HOUR_MS + 50 * MINUTE_MS));
    pages.push(store.writeCandlePage(market, 'h1', h, h * HOUR_MS, page, keys));
    if (pages.length >= 8) await flush();
  }
  const today = Math.floor((hour * HOUR_MS) / DAY_MS);
  for (let d = today - DAYS; d <= today; d++) {
    const page: CandlePage = new Map();
    const volume: VolumePage = new Map();
    for (const k of keys) {
      page.set(k, candle(priceAt(k, d * 24 + 12), 1 + (k % 40), d * DAY_MS + HOUR_MS, d * DAY_MS + 20 * HOUR_MS));
      volume.set(k, [10 + (k % 30), 3 + (k % 11), 1]);
    }
    pages.push(store.writeCandlePage(market, 'd1', d, d * DAY_MS, page, keys), store.writeVolumeShards(market, d, volumeShardsOf(volume)));
  }
  const rows: RowTable = new Map();
  const at = hour * HOUR_MS - 5 * MINUTE_MS;
  for (const k of keys) rows.set(k, { price: priceAt(k, hour - 1), quantity: 1 + (k % 40), at, reader: 'bench', changedAt: at });
  pages.push(store.writeRows(market, rows, keys));
  await flush();
  const meta = await store.meta(market);
  await store.commitMeta({ ...meta, seq: 1, newestScanAt: at, firstMergeAt: (hour - HOURS) * HOUR_MS }, 0);
  return keys;
}

/** Item data for the market's item ids, so the index has its categories (classes spread over all of them). */
export async function publishItems(keys: readonly number[]): Promise<void> {
  const classes: Array<[number, number]> = [
    [7, 9],
    [7, 7],
    [7, 5],
    [7, 6],
    [7, 12],
    [7, 10],
    [0, 0],
    [2, 1],
    [4, 2],
    [15, 0],
  ];
  const items: Record<string, { n: string; q: number; c: number; sc: number }> = {};
  for (const k of keys) {
    const id = k % 2_147_483_648;
    const [c, sc] = classes[id % classes.length];
    items[id] = { n: `Item ${id}`, q: 1, c, sc };
  }
  await publishGeneratedItems(services(), { v: 1, build: 'bench-1', source: 'bench', suffixes: {}, statNames: {}, bonusLists: {}, bonusTrees: {}, items });
}

/**
 * One hour's snapshot and recent-changes files of a 20000-key market, in ms (steady state; cold run logged),
 * and the size of the folded series the job keeps in the work bucket between runs.
 */
export async function benchSnapshotFiles(): Promise<{ ms: number; coldMs: number; seriesBytes: number }> {
  const hour = Math.floor(START / HOUR_MS) + 12;
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: hour * HOUR_MS, log: false });
  try {
    const svc = services();
    const store = svc.market.pages;
    const market = DEFAULT_MARKET;
    const keys = await seedMarket(store, market, hour);
    await publishItems(keys);
    let t = performance.now();
    const cold = await writeSnapshotFiles(svc, market, hour);
    const coldMs = performance.now() - t;
    // The next hour: one more hour page, then the job as it runs every hour.
    const page: CandlePage = new Map();
    for (const k of keys)
      page.set(k, { open: 100, high: 120, low: 90, close: 110, quantity: 3, openAt: hour * HOUR_MS + 60_000, lastAt: hour * HOUR_MS + 120_000 });
    await store.writeCandlePage(market, 'h1', hour, hour * HOUR_MS, page, keys);
    await fetch(`${rt.base}/_local/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ now: (hour + 1) * HOUR_MS + 1000 }),
    });
    t = performance.now();
    const warm = await writeSnapshotFiles(svc, market, hour + 1);
    const warmMs = performance.now() - t;
    const seriesBytes = (await getWorkObject(svc, seriesKey(market)))?.length ?? 0;
    console.log(
      `files.snapshot: cold ${Math.round(coldMs)} ms (${cold?.bytes} bytes), steady ${Math.round(warmMs)} ms (${warm?.bytes} bytes), ${keys.length} keys, ${HOURS} hours, series ${seriesBytes} bytes`,
    );
    if (!cold || !warm) throw new Error('the snapshot job wrote nothing');
    return { ms: warmMs, coldMs, seriesBytes };
  } finally {
    await rt.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const fanout = await benchFanout();
  console.log(
    `live.fanout_2000_ms ${Math.round(fanout.ms)} (stream wait ${fanout.streamWaitMs}, fan-out ${fanout.serviceMs}; ${fanout.sockets} distinct sockets)`,
  );
  const snapshot = await benchSnapshotFiles();
  console.log(`files.snapshot_ms ${Math.round(snapshot.ms)}`);
  console.log(`files.snapshot_cold_ms ${Math.round(snapshot.coldMs)}`);
  console.log(`files.recent_series_bytes ${snapshot.seriesBytes}`);
  process.exit(0);
}
