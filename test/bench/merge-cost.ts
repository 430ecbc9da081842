/**
 * Cost of a merge on the local runtime (DynamoDB Local reports `ConsumedCapacity` with AWS's rules): write
 * units of merging a complete 20000-key, 60000-entry book after a previous one, beside the one-item-per-row
 * layout's figure for the same book (DynamoDB's item-size formula; not executed), the upload → merged time
 * end to end, and the read units of one item's 90 days of day points plus its row.
 * Run alone with `npx tsx test/bench/merge-cost.ts`; the bench runner calls `benchMergeCost()`.
 */
import { pathToFileURL } from 'node:url';
import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, dayOf, type ManualClock, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import { type Candle, periodOf } from '../../shared/domain/candles';
import { deriveScan } from '../../shared/domain/derived-scan';
import { compactHistory } from '../../shared/page-format/page-codec';
import { HISTORY_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import type { HistoryPage } from '../../shared/ports/market';
import { CapacityMeter, MarketStore } from '../../shared/store/market-store';
import { services } from '../support/operator';

export interface MergeCostFigures {
  keys: number;
  entries: number;
  /** Write units of the second merge (every write the merge makes: pages, logs, meta). */
  writeUnits: number;
  /** The same book stored one item per row and per candle (a row and three candles per item). */
  perRowWriteUnits: number;
  /** perRowWriteUnits / writeUnits. */
  factor: number;
  /** Upload sent → merge committed, through the runtime (HTTP, upload Lambda, queue, merge Lambda). */
  endToEndMs: number;
  /** The upload request alone (validation, consensus read, body stored, enqueued). */
  uploadMs: number;
  /** One item's 90 days of day points (compacted history shard) plus its current row, eventually consistent. */
  itemReadUnits: number;
}

const KB = 1024;
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/** DynamoDB item size: attribute names plus values (numbers ~1 byte per 2 digits + 1, strings their UTF-8 bytes). */
function itemBytes(item: Record<string, string | number | null>): number {
  let n = 0;
  for (const [k, v] of Object.entries(item)) {
    n += Buffer.byteLength(k);
    if (typeof v === 'string') n += Buffer.byteLength(v);
    else if (typeof v === 'number') n += Math.ceil(String(Math.abs(v)).replace(/^0+/, '').length / 2) + 1;
    else n += 1;
  }
  return n;
}

const writeUnitsOf = (bytes: number): number => Math.max(1, Math.ceil(bytes / KB));

/** The per-row layout for the same merge: one row item per changed row and a candle item per resolution per scan item. */
function perRowUnits(market: string, changedRows: number, scanItems: Array<[number, number, number]>, at: number): number {
  const row = itemBytes({ pk: `MKT#${market}#ROW`, sk: '0000000000123456', price: 1234567, quantity: 1234, at, reader: 'a1b2c3d4e5f60718', changedAt: at });
  let units = changedRows * writeUnitsOf(row);
  for (const [key, price, quantity] of scanItems) {
    for (const res of ['m1', 'h1', 'd1'] as const) {
      const candle = itemBytes({
        pk: `MKT#${market}#${res}#${periodOf(res, at)}`,
        sk: String(key).padStart(16, '0'),
        open: price,
        high: price,
        low: price,
        close: price,
        quantity,
        openAt: at,
        lastAt: at,
      });
      units += writeUnitsOf(candle);
    }
  }
  return units;
}

export async function benchMergeCost(): Promise<MergeCostFigures> {
  const start = Date.UTC(2026, 10, 2, 12, 0, 0);
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: start, log: false });
  try {
    const svc = services();
    // Sum ConsumedCapacity of every market write (pk `MKT#…`): the merge's writes, none of the upload's.
    let writeUnits = 0;
    let counting = false;
    svc.ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const counted = counting && WRITES.has(context.commandName ?? '') && JSON.stringify(input).includes('"MKT#');
        if (counted) input.ReturnConsumedCapacity = 'TOTAL';
        const out = await next(args);
        const cc = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        if (counted && cc) for (const c of Array.isArray(cc) ? cc : [cc]) writeUnits += (c as { CapacityUnits?: number }).CapacityUnits ?? 0;
        return out;
      },
      { step: 'initialize', name: 'benchCapacity' },
    );
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${rt.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json()) as Record<string, string>;
    const user = await post('/_local/users', { plan: 'premium' });
    const { key } = await post('/_local/api-keys', { userId: user.id });
    const gen = new MarketGenerator({ keys: 20_000, entries: 60_000, seed: 7, start: start - 5 * MINUTE_MS, stepMs: 10 * MINUTE_MS });
    const upload = async (book: unknown) => {
      const res = await fetch(`${rt.base}/api/v1/ah/books`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(book),
      });
      if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
    };
    // Two merges first, so the measured one runs warm (as a busy market's merge function does).
    for (let i = 0; i < 2; i++) {
      await upload(gen.nextBook());
      await rt.settle();
      (rt.clock as ManualClock).advance(10 * MINUTE_MS);
    }
    const second = gen.nextBook();
    const store = new MarketStore(svc.ddb, svc.config.tableName);
    const before = await store.rows(second.market);

    counting = true;
    const t0 = performance.now();
    await upload(second);
    const uploadMs = performance.now() - t0;
    // Merged = the seq commit is visible (settle would also wait for the live fan-out and TTL sweeps).
    while ((await store.meta(second.market)).seq < 3) await new Promise((r) => setTimeout(r, 10));
    const endToEndMs = performance.now() - t0;
    await rt.settle();
    counting = false;

    const meta = await store.meta(second.market);
    if (meta.seq !== 3) throw new Error(`expected three merges, seq is ${meta.seq}`);
    const scan = deriveScan(second);
    const after = await store.rows(second.market);
    let changedRows = 0;
    for (const [k, row] of after) if (before.get(k)?.changedAt !== row.changedAt) changedRows++;
    const perRowWriteUnits = perRowUnits(second.market, changedRows, scan.items, second.at);

    const itemReadUnits = await itemReads(store, second.market, scan.items[Math.floor(scan.items.length / 2)][0], second.at);
    return {
      keys: 20_000,
      entries: second.entries.length,
      writeUnits,
      perRowWriteUnits,
      factor: perRowWriteUnits / writeUnits,
      endToEndMs,
      uploadMs,
      itemReadUnits,
    };
  } finally {
    await rt.close();
  }
}

/**
 * Read units of one item's single-item answer: its history shard (90 days compacted; the day page the merge
 * wrote stands in for each day, so the shard has its real size) and its row shard.
 */
async function itemReads(store: MarketStore, market: string, key: number, at: number): Promise<number> {
  const today = dayOf(at);
  const day = await store.candlePage(market, 'd1', today);
  let history = new Map<number, HistoryPage>();
  const shards = new Map<number, HistoryPage>();
  for (let d = today - 89; d <= today; d++) {
    const page = shifted(day, (d - today) * DAY_MS);
    history = new Map([[0, compactHistory(history.get(0) ?? new Map(), d, page, new Map(), today - 89)]]);
  }
  // Spread the compacted days into the fine shards as the compaction job would.
  const all = history.get(0) as HistoryPage;
  for (const [d, v] of all) {
    for (const [k, c] of v.candles) {
      const s = shardOf(k, HISTORY_SHARDS);
      const page = shards.get(s) ?? new Map();
      const dayPage = page.get(d) ?? { candles: new Map(), volume: new Map() };
      dayPage.candles.set(k, c);
      page.set(d, dayPage);
      shards.set(s, page);
    }
  }
  await store.writeHistories(market, shards);
  const meter = new CapacityMeter();
  const reader = new MarketStore(services().ddb, services().config.tableName, meter);
  await Promise.all([reader.historyOf(market, key), reader.rowsOf(market, [key])]);
  return meter.read;
}

function shifted(page: Map<number, Candle>, by: number): Map<number, Candle> {
  const out = new Map<number, Candle>();
  for (const [k, c] of page) out.set(k, { ...c, openAt: c.openAt + by, lastAt: c.lastAt + by });
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await benchMergeCost();
  console.log(`merge cost (${f.keys} keys, ${f.entries} entries, complete book after a previous one)`);
  console.log(`  write units ${f.writeUnits} (target <= 1500); per-row layout ${f.perRowWriteUnits} (${f.factor.toFixed(0)}x, target >= 50x)`);
  console.log(`  upload ${f.uploadMs.toFixed(0)} ms, upload -> merged ${f.endToEndMs.toFixed(0)} ms`);
  console.log(`  item read units (row + 90 days) ${f.itemReadUnits}`);
  process.exit(0);
}
