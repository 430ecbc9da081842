/**
 * The units `npm run cost` prices (issue 15, point 6), measured through the local runtime with the meter of
 * cost-meter.ts; figures are named `cost.<event>.*` (see scripts/cost/model.ts):
 * - `merge`: one complete 20000-key book uploaded and merged with a market's share of the sockets (2000 / 6)
 *   listening, schedules held back (upload, queue, merge, stream fan-out);
 * - `hour`: one market-hour of the schedules after an hour of merges (seal, snapshot, items, sweeps; a job that
 *   runs less often than hourly, retention, counts by its share of the hour);
 * - `connect`: a socket's connect, `hello` and disconnect; `read.<route>`: one API read per route of the mix,
 *   from a fresh instance (read caches cleared), and `read.<route>.warm`: the same read from a warm instance;
 * - `storage`: the bytes in the table and both buckets after 30 days on the manual clock with retention
 *   running, at reduced scale (one market of 2000 keys, 6 books a day), which the model scales up.
 * Run alone with `npx tsx test/bench/cost-units.ts [--events | --storage] [--days N] [--reads] [--json PATH]`; the bench runner
 * calls `benchCostUnits()`. `--reads` adds the reads bench's `read.item_read_units`, `read.item_read_units_warm` and `read.item_read_units_new`
 * (the model prices single-item reads with them), so `--events --reads` (about 10 minutes) and `--storage` (about 20) are every figure of
 * `npm run cost`, in two files it merges: the cost figures without the rest of the bench.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import WebSocket from 'ws';
import { demoItemData } from '../../lib/local/demo/demo-items';
import { type Runtime, startRuntime } from '../../lib/local/runtime';
import { DAY_MS, HOUR_MS, type ManualClock, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import { DEFAULT_MARKET, MARKETS } from '../../shared/domain/market';
import { ROLE_LIMITS } from '../../shared/domain/roles';
import { clearReadCaches } from '../../shared/market/read-cache';
import { SCHEDULES } from '../../shared/topology';
import { services } from '../support/operator';
import { CostMeter, type EventFigure, eventFigures } from './cost-meter';
import { benchReads } from './reads';

const MARKET = DEFAULT_MARKET;
/** The scenario's sockets per market (2000 over 6 markets). */
const SOCKETS = Math.round(2000 / MARKETS.length);
const MERGES = 4;

/**
 * The anonymous reads of the scenario (scripts/cost/scenario.ts `anonymousReads`), by the route's name there:
 * an item page, the app's configuration and caller (the page loads the app), the anonymous hourly item answer,
 * item data and the unnamed keys.
 */
export const ANONYMOUS_ROUTES: Record<string, (market: string, key: number) => string> = {
  page: (m, k) => `/item/${k}?m=${m}`,
  config: () => '/api/v1/config',
  me: () => '/api/v1/me',
  item_hourly: (m, k) => `/api/v1/ah/${m}/${k}`,
  item_data: (_m, k) => `/api/v1/items/${k}`,
  items_unknown: () => '/api/v1/items/unknown',
};

interface Caller {
  key: string;
  token: string;
}

async function post(base: string, path: string, body: unknown, token?: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, string>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function callers(rt: Runtime, now: number): Promise<Caller> {
  const user = await post(rt.base, '/_local/users', { plan: 'premium', contributorUntil: now + 60 * DAY_MS });
  const { key } = await post(rt.base, '/_local/api-keys', { userId: user.id });
  const { token } = await post(rt.base, '/_local/sessions', { userId: user.id, expiresIn: 60 * 86_400 });
  return { key, token };
}

async function upload(rt: Runtime, key: string, book: unknown): Promise<void> {
  const res = await fetch(`${rt.base}/api/v1/ah/books`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(book),
  });
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
}

/** Sockets one premium account may hold open at once (shared/domain/roles.ts `liveSockets`). */
const SOCKETS_PER_ACCOUNT = ROLE_LIMITS.premium.liveSockets;

/**
 * Opens `count` sockets on the market, each account of `tokens` holding at most its open-socket limit;
 * `heard()` is the messages they received since the last call.
 */
async function openSockets(rt: Runtime, tokens: readonly string[], count: number): Promise<{ heard(): number; close(): Promise<void> }> {
  if (tokens.length * SOCKETS_PER_ACCOUNT < count)
    throw new Error(`${count} sockets need ${Math.ceil(count / SOCKETS_PER_ACCOUNT)} accounts, not ${tokens.length}`);
  let heard = 0;
  const url = `${rt.base.replace(/^http/, 'ws')}/api/v1/live?market=${MARKET}`;
  const open = (i: number) =>
    new Promise<WebSocket>((resolve, reject) => {
      const token = tokens[Math.floor(i / SOCKETS_PER_ACCOUNT)];
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
      ws.on('message', (data) => {
        heard++;
        if (JSON.parse(data.toString()).t === 'hello') resolve(ws);
      });
      ws.on('error', reject);
      ws.on('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 10) sockets.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, j) => open(i + j)))));
  return {
    heard: () => {
      const n = heard;
      heard = 0;
      return n;
    },
    close: async () => {
      const closed = (ws: WebSocket) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.close();
        });
      // A few at a time: hundreds of `$disconnect` invocations at once time out on a busy DynamoDB Local.
      for (let i = 0; i < sockets.length; i += 10) await Promise.all(sockets.slice(i, i + 10).map(closed));
    },
  };
}

/** A scheduled job that runs less often than hourly counts by its share of an hour. */
const hourShare = (fn: string): number => {
  const s = SCHEDULES.find((x) => x.function === fn);
  return s && s.everyMinutes > 60 ? 60 / s.everyMinutes : 1;
};

/** Merge, hour, connect and read figures on a 20000-key market. */
async function benchEvents(): Promise<EventFigure[]> {
  // Hour 5 of a day: the measured settle (hour 6 starts) also runs retention (every 6 hours), counted by its share.
  const day = Date.UTC(2026, 10, 2);
  const start = day + 4 * HOUR_MS + 6 * MINUTE_MS;
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: start, log: false });
  const meter = new CostMeter();
  try {
    const clock = rt.clock as ManualClock;
    const who = await callers(rt, start);
    const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 7, market: MARKET, start: start - MINUTE_MS });
    // The hour before: two books, then the schedules (the snapshot's cold run is not the steady hour).
    for (let i = 0; i < 2; i++) {
      await upload(rt, who.key, gen.nextBook({ at: clock.now() - MINUTE_MS }));
      await rt.drain();
      clock.advance(20 * MINUTE_MS);
    }
    clock.set(day + 5 * HOUR_MS + 2 * MINUTE_MS);
    await rt.settle();
    // The listeners belong to as many premium accounts as their open-socket limit needs.
    const listeners = [who.token];
    while (listeners.length * SOCKETS_PER_ACCOUNT < SOCKETS) listeners.push((await callers(rt, start)).token);
    const sockets = await openSockets(rt, listeners, SOCKETS);
    await rt.drain();
    meter.install(rt);
    meter.take();
    sockets.heard();

    // Merges of hour 5, schedules held back (drain runs queues, stream and sockets only).
    for (let i = 0; i < MERGES; i++) {
      clock.advance(12 * MINUTE_MS);
      await upload(rt, who.key, gen.nextBook({ at: clock.now() - MINUTE_MS }));
      await rt.drain();
    }
    const merged = meter.take();
    const mergeMessages = sockets.heard() / SOCKETS / MERGES;
    const figures: EventFigure[] = [
      ...eventFigures('merge', merged.byFunction, MERGES),
      {
        name: 'cost.merge.sqs_messages',
        value: [...merged.sqsMessages].filter(([q]) => q.startsWith('merge-')).reduce((s, [, n]) => s + n, 0) / MERGES,
        unit: 'msg',
      },
      { name: 'cost.merge.http_requests', value: 1, unit: 'req' },
      { name: 'cost.merge.sockets', value: SOCKETS, unit: 'sockets' },
      { name: 'cost.merge.ws_messages_per_socket', value: mergeMessages, unit: 'msg' },
    ];

    // The schedules of that hour, run as hour 6 begins.
    clock.set(day + 6 * HOUR_MS + MINUTE_MS);
    await rt.settle();
    const hour = meter.take();
    figures.push(...eventFigures('hour', hour.byFunction, 1, hourShare), {
      name: 'cost.hour.ws_messages_per_socket',
      value: sockets.heard() / SOCKETS,
      unit: 'msg',
    });
    await sockets.close();
    await rt.drain();
    meter.take();

    // A socket's life: connect, hello, disconnect.
    const cycle = await openSockets(rt, [who.token], 20);
    await cycle.close();
    await rt.drain();
    const connected = meter.take();
    figures.push(...eventFigures('connect', connected.byFunction, 20), { name: 'cost.connect.ws_messages', value: cycle.heard() / 20, unit: 'msg' });

    // API reads of the scenario's mix, by a signed-in caller with every feature.
    const keys = gen.keys;
    const routes: Record<string, (k: number) => string> = {
      item: (k) => `/api/v1/ah/${MARKET}/${k}`,
      item_candles: (k) => `/api/v1/ah/${MARKET}/${k}/candles?res=h1`,
      market: () => `/api/v1/ah/${MARKET}?since=${clock.now() - 10 * MINUTE_MS}`,
      snapshot: () => `/api/v1/ah/${MARKET}/snapshot`,
    };
    // Cold: each read from a fresh instance (every read cache cleared first). Warm: the same reads from an instance
    // that already made them, market unchanged (one unmeasured pass fills the caches, the next is measured).
    const n = 20;
    const readAll = async (route: string, path: (k: number) => string, fresh: boolean, token: string | null = who.token): Promise<number> => {
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        if (fresh) clearReadCaches();
        const res = await fetch(`${rt.base}${path(keys[(i * 7919) % keys.length])}`, {
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'accept-encoding': 'gzip' },
        });
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`${route}: ${res.status} ${body.toString().slice(0, 200)}`);
        bytes += Number(res.headers.get('content-length') ?? body.length);
      }
      await rt.drain();
      return bytes;
    };
    for (const [route, path] of Object.entries(routes)) {
      const bytes = await readAll(route, path, true);
      figures.push(...eventFigures(`read.${route}`, meter.take().byFunction, n), { name: `cost.read.${route}.bytes`, value: Math.round(bytes / n), unit: 'B' });
      await readAll(route, path, false);
      meter.take();
      const warm = await readAll(route, path, false);
      figures.push(...eventFigures(`read.${route}.warm`, meter.take().byFunction, n), {
        name: `cost.read.${route}.warm.bytes`,
        value: Math.round(warm / n),
        unit: 'B',
      });
    }
    // Anonymous reads of what CloudFront caches (the model prices its misses at these figures): each from a fresh
    // instance, a minute apart per route so the per-address limit of anonymous callers is not what is measured.
    // Item data as an operator publishes it (the demo's generated file for the bench market's items), so item
    // data answers are the published answer and not a 404.
    const published = await fetch(`${rt.base}/_local/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(demoItemData([gen.kinds()]).file),
    });
    if (!published.ok) throw new Error(`publishing item data: ${published.status} ${await published.text()}`);
    for (const [route, path] of Object.entries(ANONYMOUS_ROUTES)) {
      clock.advance(MINUTE_MS);
      const bytes = await readAll(`anon.${route}`, (k) => path(MARKET, k), true, null);
      figures.push(...eventFigures(`anon.${route}`, meter.take().byFunction, n), { name: `cost.anon.${route}.bytes`, value: Math.round(bytes / n), unit: 'B' });
    }
    return figures;
  } finally {
    meter.uninstall();
    await rt.close();
  }
}

/** Bytes of a DynamoDB item (attribute names plus values), as DynamoDB sizes it for storage. */
function itemBytes(item: Record<string, unknown>): number {
  let n = 100; // per-item overhead DynamoDB adds for storage (its indexing bytes)
  for (const [k, v] of Object.entries(item)) {
    n += Buffer.byteLength(k);
    if (typeof v === 'string') n += Buffer.byteLength(v);
    else if (typeof v === 'number') n += Math.ceil(String(Math.abs(v)).length / 2) + 1;
    else if (v instanceof Uint8Array) n += v.byteLength;
    else n += Buffer.byteLength(JSON.stringify(v) ?? '');
  }
  return n;
}

async function bucketBytes(s3: S3Client, bucket: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const o of page.Contents ?? []) {
      const top = (o.Key ?? '').split('/')[0];
      out.set(top, (out.get(top) ?? 0) + (o.Size ?? 0));
    }
    token = page.NextContinuationToken;
  } while (token);
  return out;
}

/** 30 days (or `days`) of one reduced market, hour by hour with every schedule, then the bytes left behind. */
export async function benchStorage(days = 30): Promise<EventFigure[]> {
  const KEYS = 2000;
  const PER_DAY = 6;
  const start = Date.UTC(2026, 9, 1, 0, 30);
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: start, log: false });
  try {
    const clock = rt.clock as ManualClock;
    const who = await callers(rt, start);
    const gen = new MarketGenerator({ keys: KEYS, entries: 6000, seed: 13, market: MARKET, start: start - MINUTE_MS });
    const t0 = performance.now();
    for (let h = 0; h < days * 24; h++) {
      clock.set(start + h * HOUR_MS);
      if (h % (24 / PER_DAY) === 0) {
        await upload(rt, who.key, gen.nextBook({ at: clock.now() - MINUTE_MS }));
      }
      await rt.settle();
      if (h % 24 === 23) console.log(`cost.storage: day ${(h + 1) / 24} of ${days} (${Math.round((performance.now() - t0) / 1000)} s)`);
    }
    const svc = services();
    let tableBytes = 0;
    let key: Record<string, unknown> | undefined;
    do {
      const page = await svc.ddb.send(new ScanCommand({ TableName: svc.config.tableName, ExclusiveStartKey: key }));
      for (const item of page.Items ?? []) tableBytes += itemBytes(item);
      key = page.LastEvaluatedKey;
    } while (key);
    const files = await bucketBytes(svc.s3, svc.config.bucketName);
    const work = await bucketBytes(svc.s3, svc.config.workBucketName);
    let bucket = 0;
    for (const n of [...files.values(), ...work.values()]) bucket += n;
    const merge = (files.get('books') ?? 0) + (files.get('live') ?? 0) + (files.get('quarantine') ?? 0);
    console.log(`cost.storage: table ${tableBytes} B; files ${JSON.stringify(Object.fromEntries(files))}; work ${JSON.stringify(Object.fromEntries(work))}`);
    return [
      { name: 'cost.storage.table_bytes', value: tableBytes, unit: 'B' },
      { name: 'cost.storage.bucket_bytes', value: bucket, unit: 'B' },
      { name: 'cost.storage.merge_bytes', value: merge, unit: 'B' },
      { name: 'cost.storage.keys', value: KEYS, unit: 'keys' },
      { name: 'cost.storage.merges_per_day', value: PER_DAY, unit: 'merges' },
      { name: 'cost.storage.markets', value: 1, unit: 'markets' },
      { name: 'cost.storage.days', value: days, unit: 'days' },
    ];
  } finally {
    await rt.close();
  }
}

/** The reads bench's single-item read units from a fresh instance, a warm one, and a warm one reading an item of an unread history shard (the cost model's item route). */
export async function itemReadFigures(): Promise<EventFigure[]> {
  const r = await benchReads();
  return [
    { name: 'read.item_read_units', value: Math.round(r.itemReadUnits * 10) / 10, unit: 'RCU' },
    { name: 'read.item_read_units_warm', value: Math.round(r.itemReadUnitsWarm * 10) / 10, unit: 'RCU' },
    { name: 'read.item_read_units_new', value: Math.round(r.itemReadUnitsNewItem * 10) / 10, unit: 'RCU' },
  ];
}

/** Every `cost.*` figure: events on a 20000-key market, then the 30-day storage run. */
export async function benchCostUnits(days = 30): Promise<EventFigure[]> {
  return [...(await benchEvents()), ...(await benchStorage(days))];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string): string | undefined => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const days = Number(arg('--days') ?? 30);
  const only = process.argv.includes('--events') ? 'events' : process.argv.includes('--storage') ? 'storage' : 'all';
  const figures = only === 'events' ? await benchEvents() : only === 'storage' ? await benchStorage(days) : await benchCostUnits(days);
  if (process.argv.includes('--reads')) figures.push(...(await itemReadFigures()));
  for (const f of figures) console.log(`${f.name.padEnd(40)} ${String(f.value).padStart(12)} ${f.unit}`);
  const out = arg('--json');
  if (out)
    writeFileSync(
      out,
      `${JSON.stringify(
        figures.map((f) => ({ ...f, target: 'report' })),
        null,
        2,
      )}\n`,
    );
  process.exit(0);
}
