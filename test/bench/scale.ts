/**
 * Scale past one machine, by simulation (issue 27 point 5; the paper side is scripts/cost/scale.ts, the
 * page docs/scale.md):
 * - `benchFanoutScale()`: the production fan-out (shared/live/fanout.ts `fanout`, `sendAll`, the
 *   `ConnectionPoster` through `ApiGatewaySockets`) delivering one merge's `ah` to 20000 sockets of one market,
 *   posted through an in-memory HTTP handler answering 200 (a stub `@connections`): wall ms and process CPU
 *   per 1000 sockets (8 warm-up rounds, median of 15, mean printed; main thread and whole process);
 * - `benchMergeScale(keys)`: the production `mergeBook` (as merge-cpu.ts runs it, on DynamoDB Local and
 *   s3rver) at a market size: CPU, wall, write units (DynamoDB Local's ConsumedCapacity), the bytes of the
 *   items it writes, the busiest partition key's write units and the largest item (item-size formula);
 *   and the read units of the META read every answer makes.
 * Run alone with `npx tsx test/bench/scale.ts [keys…]` (or `--all`: every figure); the bench runner calls `benchScale()`.
 */
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { startRuntime } from '../../lib/local/runtime';
import { brokenLimits, checkLimits, type LimitCheck, nearestLimit } from '../../scripts/cost/scale';
import { SCENARIO } from '../../scripts/cost/scenario';
import { scaleTopology } from '../../scripts/cost/topology';
import { type ManualClock, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import { DEFAULT_MARKET } from '../../shared/domain/market';
import { fanout } from '../../shared/live/fanout';
import { mergeBook } from '../../shared/market/merge-book';
import type { MergeRecord } from '../../shared/ports/market';
import { ApiGatewaySockets } from '../../shared/store/api-gateway-sockets';
import { decodeChangeRecords } from '../../shared/store/change-stream';
import { mergePk, mergeSk } from '../../shared/store/keys';
import { CapacityMeter, MarketStore } from '../../shared/store/market-store';
import { MemoryConnections } from '../../shared/store/memory/connections';
import { storeBookFile } from '../../shared/upload/book-storage';
import { services } from '../support/operator';
import type { Figure } from './report';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Main-thread CPU ms (`threadCpuUsage` where Node has it) and whole-process CPU ms since `p0`/`t0`. */
const threadCpu = (): number => {
  const f = (process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (!f) return Number.NaN;
  const u = f();
  return (u.user + u.system) / 1000;
};
const processCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export interface FanoutScaleFigures {
  sockets: number;
  /** Median wall ms of one fan-out of one merge to every socket. */
  wallMs: number;
  /** Median process CPU ms per 1000 sockets, and the mean. */
  cpuMsPer1000: number;
  cpuMsPer1000Mean: number;
  /** Median main-thread CPU ms per 1000 sockets (NaN where Node cannot tell). */
  threadCpuMsPer1000: number;
  posts: number;
  runs: number;
}

/** `@connections` answering every post 200 at once: only the client side (ours) is measured. */
const stubHandler = {
  handle: async () => ({ response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.alloc(0)]) } }),
  updateHttpClientConfig: () => undefined,
  httpHandlerConfigs: () => ({}),
};

/** The production fan-out of one merge to `sockets` sockets of one market, through a stub `@connections`. */
export async function benchFanoutScale(sockets = 20_000, warmup = 8, runs = 15): Promise<FanoutScaleFigures> {
  const connections = new MemoryConnections();
  const market = DEFAULT_MARKET;
  const claims = { plan: 'premium' };
  for (let i = 0; i < sockets; i++) {
    const c = await connections.add({
      connectionId: `c${i.toString(36).padStart(6, '0')}`,
      market,
      userId: `u${i % 5000}`,
      kind: 'session',
      claims,
      scopes: null,
      roles: ['free', 'premium'],
      features: ['prices.live', 'books'] as never,
      historyDays: 90,
      validUntil: null,
      connectedAt: 0,
    });
    await connections.update(c, { ready: true });
  }
  let posts = 0;
  const client = new ApiGatewayManagementApiClient({
    region: 'eu-west-1',
    endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: {
      ...stubHandler,
      handle: () => {
        posts++;
        return stubHandler.handle();
      },
    } as never,
  });
  const svc = {
    config: { cdnBase: 'https://cdn.bench.example/' },
    clock: { now: () => 0 },
    connections,
    sockets: new ApiGatewaySockets(client, false),
    market: {},
    log: () => undefined,
  } as unknown as Parameters<typeof fanout>[0];
  const event = (seq: number): DynamoDBStreamEvent => {
    const record: MergeRecord & { pk: string; sk: string } = {
      pk: mergePk(market),
      sk: mergeSk(seq),
      market,
      seq,
      at: 1_764_000_000_000 + seq,
      mergedAt: 1_764_000_000_000 + seq,
      changePath: `live/v1/${market}/${seq}-AAAAAAAAAAAAAAAAAAAAAA.json.gz`,
      bookPath: `books/v1/${market}/${seq}-AAAAAAAAAAAAAAAAAAAAAA.json.gz`,
    };
    const image = marshall(record) as never;
    return { Records: [{ eventName: 'INSERT', dynamodb: { Keys: marshall({ pk: record.pk, sk: record.sk }) as never, NewImage: image } }] };
  };
  const wall: number[] = [];
  const cpu: number[] = [];
  const thread: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const before = posts;
    const p0 = processCpu();
    const t0 = threadCpu();
    const w0 = performance.now();
    await fanout(svc, decodeChangeRecords(event(i + 1).Records));
    const w = performance.now() - w0;
    const t = threadCpu() - t0;
    const p = processCpu() - p0;
    if (posts - before !== sockets) throw new Error(`fan-out posted ${posts - before} of ${sockets}`);
    if (i >= warmup) {
      wall.push(w);
      cpu.push(p / (sockets / 1000));
      thread.push(t / (sockets / 1000));
    }
  }
  return {
    sockets,
    wallMs: median(wall),
    cpuMsPer1000: median(cpu),
    cpuMsPer1000Mean: mean(cpu),
    threadCpuMsPer1000: median(thread),
    posts,
    runs,
  };
}

/** DynamoDB's item size (attribute names + values; numbers ~1 byte per 2 digits + 1; maps and lists 3 + 1 per element). */
export function itemBytes(item: Record<string, unknown>): number {
  const value = (v: unknown): number => {
    if (v === null || v === undefined || typeof v === 'boolean') return 1;
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (typeof v === 'number' || typeof v === 'bigint') return Math.ceil(String(v).replace(/^-?0*/, '').replace('.', '').length / 2) + 1;
    if (v instanceof Uint8Array) return v.byteLength;
    if (v instanceof Set) return [...v].reduce((n: number, x) => n + value(x), 0);
    if (Array.isArray(v)) return 3 + v.reduce((n: number, x) => n + 1 + value(x), 0);
    if (typeof v === 'object') return 3 + Object.entries(v as Record<string, unknown>).reduce((n, [k, x]) => n + 1 + Buffer.byteLength(k) + value(x), 0);
    return 0;
  };
  return Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + value(v), 0);
}

export interface MergeScaleFigures {
  keys: number;
  entries: number;
  cpuMs: number;
  cpuMsMean: number;
  threadCpuMs: number;
  wallMs: number;
  /** DynamoDB Local's ConsumedCapacity of the merge's market writes (median merge). */
  writeUnits: number;
  /** Bytes of the items the merge puts (median merge, item-size formula). */
  itemBytes: number;
  /** Write units (item-size formula, 1 KB each) of the merge's busiest partition key, and which key it is. */
  hottestKeyWriteUnits: number;
  hottestKey: string;
  largestItemBytes: number;
  /** Read units of one META read (strongly consistent), as every answer makes it. */
  metaReadUnits: number;
  runs: number;
  warmup: number;
}

const WRITES = new Set(['PutCommand', 'BatchWriteCommand', 'UpdateCommand', 'PutItemCommand', 'BatchWriteItemCommand', 'UpdateItemCommand']);

/** The production merge of complete books at a market size, after `warmup` merges; medians of `runs`. */
export async function benchMergeScale(keys: number, warmup = 3, runs = 5): Promise<MergeScaleFigures> {
  const start = Date.UTC(2026, 10, 2, 12, 0, 0);
  const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: start, log: false });
  try {
    const svc = services();
    const clock = rt.clock as ManualClock;
    // Per merge: consumed units, item bytes and units per partition key of every market write.
    let counting = false;
    let units = 0;
    let bytes = 0;
    let largest = 0;
    let perKey = new Map<string, number>();
    const put = (item: Record<string, unknown>) => {
      const pk = String(item.pk ?? '');
      if (!pk.startsWith('MKT#')) return;
      const b = itemBytes(item);
      bytes += b;
      largest = Math.max(largest, b);
      perKey.set(pk, (perKey.get(pk) ?? 0) + Math.max(1, Math.ceil(b / 1024)));
    };
    svc.ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        const input = args.input as Record<string, unknown>;
        const counted = counting && WRITES.has(name) && JSON.stringify(input, (_k, v) => (v instanceof Uint8Array ? null : v)).includes('MKT#');
        if (counted) {
          input.ReturnConsumedCapacity = 'TOTAL';
          if (input.Item) put(input.Item as Record<string, unknown>);
          for (const reqs of Object.values((input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: { Item: Record<string, unknown> } }>>))
            for (const r of reqs) if (r.PutRequest) put(r.PutRequest.Item);
        }
        const out = await next(args);
        const cc = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        if (counted && cc) {
          const got = (Array.isArray(cc) ? cc : [cc]).reduce((n: number, c) => n + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
          units += got;
          // An update's item is not in its input: its units go to its key.
          const key = (input.Key as { pk?: string } | undefined)?.pk;
          if (name.startsWith('Update') && key?.startsWith('MKT#')) perKey.set(key, (perKey.get(key) ?? 0) + got);
        }
        return out;
      },
      { step: 'initialize', name: 'benchScaleWrites' },
    );
    const gen = new MarketGenerator({ keys, entries: keys * 3, seed: 5, start, stepMs: 10 * MINUTE_MS });
    const rows: Array<{ cpu: number; thread: number; wall: number; units: number; bytes: number; hot: [string, number]; largest: number }> = [];
    let entries = 0;
    for (let i = 0; i < warmup + runs; i++) {
      const book = gen.nextBook();
      entries = book.entries.length;
      const bookPath = await storeBookFile(svc, book);
      clock.set(book.at + MINUTE_MS);
      const msg = {
        v: 1,
        kind: 'book',
        market: book.market,
        uploadId: `bench-scale-${i}`,
        bookPath,
        at: book.at,
        uploader: 'a1b2c3d4e5f60718',
        credited: true,
      } as const;
      units = 0;
      bytes = 0;
      largest = 0;
      perKey = new Map();
      counting = true;
      const p0 = processCpu();
      const t0 = threadCpu();
      const w0 = performance.now();
      const out = await mergeBook(svc, msg);
      const wall = performance.now() - w0;
      const thread = threadCpu() - t0;
      const cpu = processCpu() - p0;
      counting = false;
      if (!out.merged || out.seq !== i + 1) throw new Error(`merge ${i + 1} did not merge: ${JSON.stringify(out)}`);
      const hot = [...perKey].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
      if (i >= warmup) rows.push({ cpu, thread, wall, units, bytes, hot, largest });
      // The merge record's fan-out and the stream's other work run before the next merge.
      await rt.settle();
    }
    const meter = new CapacityMeter();
    await new MarketStore(svc.ddb, svc.config.tableName, meter).meta(DEFAULT_MARKET);
    const mid = [...rows].sort((a, b) => a.cpu - b.cpu)[(rows.length - 1) >> 1];
    return {
      keys,
      entries,
      cpuMs: median(rows.map((r) => r.cpu)),
      cpuMsMean: mean(rows.map((r) => r.cpu)),
      threadCpuMs: median(rows.map((r) => r.thread)),
      wallMs: median(rows.map((r) => r.wall)),
      writeUnits: median(rows.map((r) => r.units)),
      itemBytes: median(rows.map((r) => r.bytes)),
      hottestKeyWriteUnits: Math.max(...rows.map((r) => r.hot[1])),
      hottestKey: mid.hot[0],
      largestItemBytes: Math.max(...rows.map((r) => r.largest)),
      metaReadUnits: meter.read,
      runs,
      warmup,
    };
  } finally {
    await rt.close();
  }
}

/** The figures `npm run bench` prints for point 5, in order. */
export const SCALE_FIGURES = [
  'scale.fanout_20000_ms',
  'scale.fanout_cpu_ms_per_1000',
  'scale.merge_100k.cpu_ms',
  'scale.merge_100k.wall_ms',
  'scale.merge_100k.write_units',
  'scale.merge_100k.item_kb',
  'scale.merge_100k.hottest_key_wcu',
  'scale.merge_100k.largest_item_kb',
  'scale.meta_rcu_per_s_x10',
  'scale.meta_rcu_per_s_x100',
  'scale.x10.first_limit_at',
  'scale.x100.first_limit_at',
] as const;

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
const limitNote = (c: LimitCheck): string => `${c.id}: ${c.what}; ${round(c.demand, 2)} of ${c.capacity} ${c.unit}; lift: ${c.lift}`;

/**
 * Point 5's figures: the simulations above, then the scale model (scripts/cost/scale.ts) at 10× and 100× the
 * cost scenario with 100000 keys a market, fed with what was just measured. The ×1 row (20000 keys) is in
 * docs/scale.md from the same inputs.
 */
export async function benchScale(): Promise<Figure[]> {
  const f = await benchFanoutScale();
  const m = await benchMergeScale(100_000);
  const m20 = await benchMergeScale(20_000);
  const inputs = {
    fanoutCpuMsPer1000: f.cpuMsPer1000,
    metaReadUnits: m.metaReadUnits,
    merges: [m20, m].map((x) => ({
      keys: x.keys,
      cpuMs: x.cpuMs,
      wallMs: x.wallMs,
      hottestKeyWriteUnits: x.hottestKeyWriteUnits,
      largestItemBytes: x.largestItemBytes,
    })),
  };
  const at = (factor: number) => checkLimits(SCENARIO, inputs, scaleTopology(), factor, 100_000);
  const x10 = at(10);
  const x100 = at(100);
  const meta = (checks: LimitCheck[]) => checks.find((c) => c.id === 'ddb.meta_rcu') as LimitCheck;
  const first = (checks: LimitCheck[], factor: number): Figure => {
    const broken = brokenLimits(checks);
    const c = broken[0] ?? nearestLimit(checks);
    return {
      name: `scale.x${factor}.first_limit_at`,
      value: round(c.breaksAt, 1),
      unit: 'x',
      target: 'report',
      note: `${broken.length > 0 ? `${broken.length} broken, first` : 'none broken, nearest'} ${limitNote(c)}${
        broken.length > 1
          ? `; then ${broken
              .slice(1)
              .map((b) => `${b.id} at ${round(b.breaksAt, 1)}x`)
              .join(', ')}`
          : ''
      }`,
    };
  };
  console.log(`scale: merge at 20000 keys ${JSON.stringify(m20)}`);
  console.log(`scale: merge at 100000 keys ${JSON.stringify(m)}`);
  for (const [factor, checks] of [
    [1, checkLimits(SCENARIO, inputs, scaleTopology(), 1, 20_000)],
    [10, x10],
    [100, x100],
  ] as const)
    for (const c of checks) console.log(`scale x${factor}: ${c.id} ${round((100 * c.demand) / c.capacity, 1)}% (breaks at ${round(c.breaksAt, 1)}x)`);
  const runs = `median of ${m.runs} after ${m.warmup} warm-up merges`;
  return [
    {
      name: 'scale.fanout_20000_ms',
      value: round(f.wallMs),
      unit: 'ms',
      target: 'report',
      note: `production fan-out of one merge to ${f.sockets} sockets of one market through a stub @connections (answers 200 at once), median of ${f.runs} after 8 warm-ups`,
    },
    {
      name: 'scale.fanout_cpu_ms_per_1000',
      value: round(f.cpuMsPer1000),
      unit: 'ms',
      target: 'report',
      note: `process CPU per 1000 sockets (mean ${round(f.cpuMsPer1000Mean)}; main thread alone not measurable on Node ${process.versions.node}), in-memory socket records`,
    },
    {
      name: 'scale.merge_100k.cpu_ms',
      value: round(m.cpuMs),
      unit: 'ms',
      target: 'report',
      note: `production mergeBook, ${m.entries} entries, 100000 keys, process CPU (mean ${round(m.cpuMsMean)}), ${runs}; 20000 keys: ${round(m20.cpuMs)} ms`,
    },
    {
      name: 'scale.merge_100k.wall_ms',
      value: round(m.wallMs),
      unit: 'ms',
      target: 'report',
      note: `DynamoDB Local + s3rver; a market merges one batch at a time (20000 keys: ${round(m20.wallMs)} ms)`,
    },
    {
      name: 'scale.merge_100k.write_units',
      value: round(m.writeUnits),
      unit: 'WCU',
      target: 'report',
      note: `ConsumedCapacity of the market writes (20000 keys: ${round(m20.writeUnits)})`,
    },
    {
      name: 'scale.merge_100k.item_kb',
      value: round(m.itemBytes / 1024),
      unit: 'KB',
      target: 'report',
      note: `bytes of the items the merge puts, item-size formula (20000 keys: ${round(m20.itemBytes / 1024)} KB)`,
    },
    {
      name: 'scale.merge_100k.hottest_key_wcu',
      value: round(m.hottestKeyWriteUnits),
      unit: 'WCU',
      target: '<= 1000',
      max: 1000,
      note: `one merge's writes to its busiest partition key (${m.hottestKey.replace(/^MKT#[^#]+/, 'MKT#<market>')}); a partition takes 1000 WCU/s (20000 keys: ${round(m20.hottestKeyWriteUnits)})`,
    },
    {
      name: 'scale.merge_100k.largest_item_kb',
      value: round(m.largestItemBytes / 1024),
      unit: 'KB',
      target: '<= 400',
      max: 400,
      note: `DynamoDB's item limit is 400 KB (20000 keys: ${round(m20.largestItemBytes / 1024)} KB)`,
    },
    ...(
      [
        [10, x10],
        [100, x100],
      ] as const
    ).map(([factor, checks]) => ({
      name: `scale.meta_rcu_per_s_x${factor}`,
      value: round(meta(checks).demand),
      unit: 'RCU/s',
      target: '<= 3000',
      max: 3000,
      note: `one market's META at ${factor}x the scenario's API reads, ${meta(checks).what.replace(/^a market's META item, /, '')} (breaks at ${round(meta(checks).breaksAt)}x)`,
    })),
    first(x10, 10),
    first(x100, 100),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--all')) {
    for (const fig of await benchScale()) console.log(`${fig.name} ${fig.value} ${fig.unit} (${fig.target}) ${fig.note ?? ''}`);
    process.exit(0);
  }
  const f = await benchFanoutScale();
  console.log(
    `fan-out ${f.sockets} sockets: ${f.wallMs.toFixed(0)} ms wall, ${f.cpuMsPer1000.toFixed(1)} ms CPU per 1000 (mean ${f.cpuMsPer1000Mean.toFixed(1)}, main thread ${f.threadCpuMsPer1000.toFixed(1)}), median of ${f.runs}`,
  );
  for (const keys of process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0)) {
    const m = await benchMergeScale(keys);
    console.log(JSON.stringify(m));
  }
  process.exit(0);
}
