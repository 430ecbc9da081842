/**
 * Live and file-job figures through the local runtime:
 * - `benchFanout()`: ms from a merge (the book's upload request) to the last of 2000 sockets on one market
 *   receiving its `ah` (target <= 2000 ms);
 * - `benchSnapshotFiles()`: ms building and writing one hour's snapshot and recent-changes files of a
 *   20000-key market with 240 hours of hour candles (target <= 3000 ms), in the steady state (the folded
 *   recent series of the previous hour exists; the first, cold run is printed beside it).
 * Run alone with `npx tsx test/bench/live.ts`; the bench runner calls both.
 */
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator, mulberry32 } from '../../shared/demo/market-generator';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { DEFAULT_MARKET } from '../../shared/domain/market';
import type { RowTable } from '../../shared/domain/merge';
import type { VolumePage } from '../../shared/domain/volume-estimate';
import { writeSnapshotFiles } from '../../shared/files/snapshot-files';
import { publishGeneratedItems } from '../../shared/items/publish';
import { services } from '../../shared/services';
import { MarketStore } from '../../shared/store/market-store';

const START = Date.UTC(2026, 10, 2, 0, 0, 0);
const SOCKETS = 2000;

async function post(base: string, path: string, body: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Opens one socket and resolves once its `hello` arrived; `onAh` is told when its first `ah` arrives. */
function openSocket(base: string, token: string, onAh: () => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1/live?market=${DEFAULT_MARKET}`, { headers: { authorization: `Bearer ${token}` } });
    let greeted = false;
    ws.on('message', (data) => {
      const t = (JSON.parse(data.toString()) as { t: string }).t;
      if (t === 'hello' && !greeted) {
        greeted = true;
        resolve(ws);
      } else if (t === 'ah') onAh();
    });
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
}

/** Merge → the last of 2000 sockets of one market receiving its `ah`, in ms. */
export async function benchFanout(): Promise<number> {
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: START, log: false });
  const sockets: WebSocket[] = [];
  try {
    const base = rt.base;
    const user = await post(base, '/_local/users', { plan: 'free', contributorUntil: START + 30 * DAY_MS });
    const { token } = await post(base, '/_local/sessions', { userId: user.id, expiresIn: 86_400 });
    const uploader = await post(base, '/_local/users', { plan: 'free' });
    const { key } = await post(base, '/_local/api-keys', { userId: uploader.id });
    let received = 0;
    let last = 0;
    let allReceived: () => void = () => undefined;
    const done = new Promise<void>((r) => {
      allReceived = r;
    });
    const onAh = () => {
      received++;
      if (received === SOCKETS) {
        last = performance.now();
        allReceived();
      }
    };
    for (let i = 0; i < SOCKETS; i += 100) sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, SOCKETS - i) }, () => openSocket(base, token, onAh)))));
    await post(base, '/_local/settle', {});
    const gen = new MarketGenerator({ keys: 2000, entries: 4000, seed: 5, start: START });
    const book = { ...gen.nextBook({ at: START }), market: DEFAULT_MARKET };
    const t0 = performance.now();
    if (process.env.BENCH_TRACE) console.log('TRACE upload at', Math.round(t0));
    await post(base, '/api/v1/ah/books', book, key);
    if (process.env.BENCH_TRACE) console.log('TRACE upload answered', Math.round(performance.now()));
    await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${received} of ${SOCKETS} sockets heard ah`)), 60_000))]);
    return last - t0;
  } finally {
    for (const ws of sockets) ws.terminate();
    await rt.close();
  }
}

const HOURS = 240;
const DAYS = 10;

/** A 20000-key market with rows, 240 hours of hour candles, 10 days of day candles and volume: written page by page. */
async function seedMarket(store: MarketStore, market: string, hour: number): Promise<number[]> {
  const gen = new MarketGenerator({ keys: 20_000, entries: 20_000, seed: 3, start: (hour - HOURS) * HOUR_MS });
  const keys = gen.keys;
  const rand = mulberry32(9);
  const base = new Map(keys.map((k) => [k, 100 + Math.floor(rand() * 5_000_000)]));
  const priceAt = (k: number, h: number) => Math.max(1, Math.round((base.get(k) as number) * (1 + 0.2 * Math.sin(h / 13 + (k % 97)))));
  const candle = (price: number, q: number, openAt: number, lastAt: number): Candle => ({ open: price, high: Math.round(price * 1.05), low: Math.round(price * 0.97), close: price, quantity: q, openAt, lastAt });
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
    pages.push(store.writeCandlePage(market, 'd1', d, d * DAY_MS, page, keys), store.writeVolumePage(market, d, volume, keys));
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
async function publishItems(keys: readonly number[]): Promise<void> {
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

/** One hour's snapshot and recent-changes files of a 20000-key market, in ms (steady state; cold run logged). */
export async function benchSnapshotFiles(): Promise<number> {
  const hour = Math.floor(START / HOUR_MS) + 12;
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: hour * HOUR_MS, log: false });
  try {
    const svc = services();
    const store = new MarketStore(svc.ddb, svc.config.tableName);
    const market = DEFAULT_MARKET;
    const keys = await seedMarket(store, market, hour);
    await publishItems(keys);
    let t = performance.now();
    const cold = await writeSnapshotFiles(svc, market, hour, store);
    const coldMs = performance.now() - t;
    // The next hour: one more hour page, then the job as it runs every hour.
    const page: CandlePage = new Map();
    for (const k of keys) page.set(k, { open: 100, high: 120, low: 90, close: 110, quantity: 3, openAt: hour * HOUR_MS + 60_000, lastAt: hour * HOUR_MS + 120_000 });
    await store.writeCandlePage(market, 'h1', hour, hour * HOUR_MS, page, keys);
    await fetch(`${rt.base}/_local/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ now: (hour + 1) * HOUR_MS + 1000 }) });
    t = performance.now();
    const warm = await writeSnapshotFiles(svc, market, hour + 1, store);
    const warmMs = performance.now() - t;
    console.log(`files.snapshot: cold ${Math.round(coldMs)} ms (${cold?.bytes} bytes), steady ${Math.round(warmMs)} ms (${warm?.bytes} bytes), ${keys.length} keys, ${HOURS} hours`);
    return warmMs;
  } finally {
    await rt.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const fanout = await benchFanout();
  console.log(`live.fanout_2000_ms ${Math.round(fanout)}`);
  const snapshot = await benchSnapshotFiles();
  console.log(`files.snapshot_ms ${Math.round(snapshot)}`);
  process.exit(0);
}
