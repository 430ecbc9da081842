/**
 * The cost model of a stage (issue 15, point 6): a monthly bill from MEASURED figures (`npm run bench --
 * --json` output), the scenario and the price list. Pure: no I/O, no clock; `scripts/cost/cli.ts` reads the
 * files. Every figure it needs is read by name and a missing one is an error naming it, never a default.
 *
 * Figures per event (written by test/bench/cost-units.ts; `E` is `merge`, `hour`, `connect` or `read.<route>`):
 * `cost.E.rcu`, `cost.E.wcu` (DynamoDB units), `cost.E.s3_put` (PUT/COPY/POST/LIST), `cost.E.s3_get`
 * (GET/HEAD), `cost.E.ms.<function>` and `cost.E.calls.<function>` (Lambda wall ms and invocations per event).
 * A read route's `cost.read.<route>.*` figures are a fresh instance's read; `cost.read.<route>.warm.*` the same
 * read answered by a warm instance whose caches hold it. A read is priced as warm + (fresh − warm) × the route's
 * cache miss rate (`cacheMissRate`, from the scenario's instances and the route's cache spread); a route
 * without warm figures is priced fresh.
 */
import type { CostLine, CostTopology, Prices } from './inputs';
import { cdnMissRate, operationsLines } from './operations';

export type { CostLine, CostTopology, Prices };

import type { Scenario } from './scenario';
import type { TemplateFacts } from './template';

export interface Figure {
  name: string;
  value: number;
}

export interface CostReport {
  total_usd_month: number;
  lines: CostLine[];
  biggest: string;
  /** What would halve the biggest line. */
  halve: string;
  /** Lambda invocations in the month by function (what X-Ray samples and Lambda's own log lines follow). */
  invocations: Record<string, number>;
}

export class MissingFigureError extends Error {
  constructor(readonly figure: string) {
    super(`figure "${figure}" is missing from the figures file (measure it with \`npm run bench -- --json PATH\`)`);
    this.name = 'MissingFigureError';
  }
}

/** API Gateway HTTP APIs meter a request per 512 KB of payload. */
const HTTP_METER_BYTES = 512 * 1024;
const GB = 1024 ** 3;

/** What would halve each line, printed for the biggest one. */
export const HALVE: Readonly<Record<string, string>> = {
  'DynamoDB writes: merges':
    'merge only the shards a book changes and skip pages whose encoded bytes did not change (a steady market rewrites few prices), or merge every other book of a market (150 a day)',
  'DynamoDB reads: merges': 'keep the merge function warm with its pages cached between books (read only META and changed shards)',
  'DynamoDB reads: API reads':
    "nearly all of it is each instance's first reads of a market's shards after each merge (a complete book rewrites every shard, so the cached ones go): fewer, busier API instances miss less (3 instead of 6: $13.11 against $20.00 on the 2026-11-26 figures), and so would merging fewer books a market (every other book: about half the misses)",
  'DynamoDB units: hourly jobs': 'run the snapshot and seal jobs on changed markets only',
  'DynamoDB units: sockets': 'reconnect less often (keep the 2-hour connection to its limit)',
  'DynamoDB storage': 'keep day history 30 days in the table and older days only in S3 files',
  'Lambda requests':
    'the API reads are nearly all of it (one invocation each, now that the stream filter keeps rate counters from invoking the fan-out): fewer, larger reads (the batch candles route takes 50 items a request)',
  'API Gateway HTTP requests':
    "it is the scenario's own request count at HTTP APIs' $1.00 a million (API Gateway's cheapest); only fewer requests halve it: callers reading many items use the batch candles route (50 items a request) or the hourly files on CloudFront ($0.01 per 10000) instead of one request an item, and signed-in answers are per caller, so a CDN cannot share them",
  'WebSocket messages': 'send one `ah` per market per minute (batched) instead of one per merge',
  'WebSocket connection minutes': 'close idle sockets after 10 minutes without a subscription',
  'S3 PUT/LIST requests': 'write one change file per merge only when a socket or client reads it (or batch change files per minute)',
  'S3 GET requests': 'cache published files in the function between invocations',
  'S3 storage': 'keep uploaded books 15 days instead of 30',
  'SQS requests': 'drop idle long-polling: one merge queue for all markets (message groups keep markets apart) cuts pollers 6-fold',
  'EventBridge schedules': 'run the seal and live-sweep schedules every 5 minutes',
  'CloudFront requests (hourly files)': 'clients read the snapshot pointer only when the hour turns (Cache-Control on the pointer) instead of polling it',
  'X-Ray traces':
    'trace the pipeline only (upload, merge, fan-out, push and the scheduled jobs): the API, pages and socket functions start most traces (X-Ray’s default rule records each function’s first request a second); PassThrough on them leaves their traces to a caller that asks, or a sampling rule of a lower rate, where Lambda honours one',
  WAF: 'it is $0.60 a million requests inspected on top of the fixed $7: only fewer requests through the distribution halve it',
  'CloudFront: signed-in traffic': 'fewer requests: callers reading many items use the batch candles route or the hourly files',
  'CloudFront: anonymous reads': 'most of it is the item pages’ bytes: smaller pages (the embedded data is the anonymous hourly answer) or a longer max-age',
  'CloudWatch Logs ingestion':
    'Lambda’s own START/END/REPORT lines are most of it: the JSON log format with the system log level at WARN drops them; EMF lines of answers that count nothing new are the rest',
  'CloudWatch custom metrics': 'drop the market dimension of the merge metrics (12 of the metrics) and keep it in the logs',
  'CloudWatch alarms': 'one composite alarm per function over its errors and throttles instead of two alarms',
  'Secrets Manager': 'it is the secrets’ monthly fee: fewer secrets (the VAPID public half is not secret and could be plain configuration)',
  'DynamoDB units: anonymous misses':
    'a longer max-age for item pages, or Origin Shield (one cache instead of one per regional edge): item pages spread over 120 000 URLs miss nearly always',
};

const lambdaLine = (fn: string): string => `Lambda ${fn} (GB-s)`;

/**
 * The share of a route's reads that miss a warm instance's cache: `reads` reads of one market in one validity
 * period, spread evenly over `instances` instances and uniformly over `entries` cache entries. Each instance
 * misses once per entry it touches in the period: entries × (1 − (1 − 1/entries)^(reads / instances)).
 */
export function cacheMissRate(reads: number, instances: number, entries: number): number {
  if (reads <= 0) return 1;
  const perInstance = reads / instances;
  const touched = entries * (1 - (1 - 1 / entries) ** perInstance);
  return Math.min(1, (instances * touched) / reads);
}

/**
 * The monthly bill of `scenario` from measured `figures` at `prices`, for the stack whose synthesized template
 * `facts` counts (alarms, dashboards, secrets, WAF rules, tracing).
 */
export function costModel(figures: readonly Figure[], scenario: Scenario, prices: Prices, topology: CostTopology, facts: TemplateFacts): CostReport {
  const byName = new Map(figures.map((f) => [f.name, f.value]));
  const fig = (name: string): number => {
    const v = byName.get(name);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new MissingFigureError(name);
    return v;
  };
  /** Lambda `ms.<fn>` / `calls.<fn>` figures of one event. */
  const perFunction = (event: string, what: 'ms' | 'calls'): Map<string, number> => {
    const prefix = `cost.${event}.${what}.`;
    const out = new Map<string, number>();
    for (const [name, value] of byName) if (name.startsWith(prefix)) out.set(name.slice(prefix.length), value);
    if (what === 'ms' && out.size === 0) throw new MissingFigureError(`${prefix}<function>`);
    return out;
  };
  const memoryGb = (fn: string): number => {
    const mb = topology.memoryMb[fn];
    if (typeof mb !== 'number') throw new Error(`function "${fn}" of the figures is not in the manifest (lib/topology.ts)`);
    return mb / 1024;
  };

  const days = scenario.daysPerMonth;
  const merges = scenario.markets * scenario.mergesPerMarketPerDay * days;
  const hours = scenario.markets * 24 * days;
  const connects = scenario.socketsAllDay * scenario.socketConnectsPerDay * days;
  const reads = Object.entries(scenario.readMix).map(([route, share]) => {
    const cache = scenario.readCaches[route];
    const periodsPerDay = cache?.validFor === 'hour' ? 24 : scenario.mergesPerMarketPerDay;
    const perPeriod = (scenario.apiReadsPerDay * share) / scenario.markets / periodsPerDay;
    const warm = byName.has(`cost.read.${route}.warm.rcu`);
    const miss = cache && warm ? cacheMissRate(perPeriod, scenario.apiInstances, cache.entriesPerMarket) : 1;
    const perDay = (scenario.apiReadsPerDay * share) / scenario.markets;
    const historyMiss = cache?.history && warm ? cacheMissRate(perDay, scenario.apiInstances, cache.history.entriesPerMarket) : undefined;
    return { route, count: scenario.apiReadsPerDay * share * days, miss, historyMiss };
  });
  /** A read figure (`cost.read.<route>.<what>`) as priced: warm + (fresh − warm) × miss rate. */
  const readFig = (route: string, what: string, fresh = `cost.read.${route}.${what}`, warm = `cost.read.${route}.warm.${what}`): number => {
    const r = reads.find((x) => x.route === route);
    if (!r || r.miss >= 1) return fig(fresh);
    const w = fig(warm);
    return w + (fig(fresh) - w) * r.miss;
  };
  /**
   * A single-item answer's read units as priced (the reads bench's figures, 90 days of history): warm, plus the
   * history shard's part (new − warm) at the history cache's miss rate, plus the page shards' part
   * (fresh − new) at the route's. Without a history cache both parts go at the route's miss rate.
   */
  const itemRcu = (): number => {
    const r = reads.find((x) => x.route === 'item');
    const fresh = 'read.item_read_units';
    if (!r || r.miss >= 1) return fig(fresh);
    if (r.historyMiss === undefined) return readFig('item', 'rcu', fresh, 'read.item_read_units_warm');
    const [f, n, w] = [fig(fresh), fig('read.item_read_units_new'), fig('read.item_read_units_warm')];
    return w + (n - w) * r.historyMiss + (f - n) * r.miss;
  };
  const socketsPerMarket = scenario.socketsAllDay / scenario.markets;
  const measuredSockets = fig('cost.merge.sockets');
  // The fan-out's work is per socket: its measured ms scale to the scenario's sockets per market.
  const socketScale = measuredSockets > 0 ? socketsPerMarket / measuredSockets : 1;

  // Anonymous reads through CloudFront: every request is CloudFront's; only its misses reach the origin, priced
  // at the bench's anonymous figures (`cost.anon.<route>.*`, each read from a fresh instance).
  const anonymous = Object.entries(scenario.anonymousReads).map(([route, a]) => {
    const requests = a.perDay * days;
    const miss = cdnMissRate(a.perDay, a.urls, a.ttl, scenario.cdnCaches);
    return { route, requests, miss, origin: requests * miss };
  });

  /** Event kinds with their monthly count (`hour` is one market-hour). */
  const events: Array<{ event: string; count: number; miss?: number }> = [
    { event: 'merge', count: merges },
    { event: 'hour', count: hours },
    { event: 'connect', count: connects },
    ...reads.map((r) => ({ event: `read.${r.route}`, count: r.count, miss: r.miss })),
    ...anonymous.map((a) => ({ event: `anon.${a.route}`, count: a.origin })),
  ];

  const lines: CostLine[] = [];
  const add = (name: string, usd: number, detail: string): void => {
    lines.push({ name, usd_month: usd, detail });
  };
  const M = (n: number): string => `${(n / 1e6).toFixed(2)} M`;
  const wru = prices.dynamodb_write_request_unit_per_million / 1e6;
  const rru = prices.dynamodb_read_request_unit_per_million / 1e6;

  // DynamoDB request units, per merge and per read route.
  const mergeWcu = merges * fig('cost.merge.wcu');
  add('DynamoDB writes: merges', mergeWcu * wru, `${M(mergeWcu)} write units (${fig('cost.merge.wcu')} per merge × ${M(merges)} merges)`);
  const mergeRcu = merges * fig('cost.merge.rcu');
  add('DynamoDB reads: merges', mergeRcu * rru, `${M(mergeRcu)} read units (${fig('cost.merge.rcu')} per merge)`);
  let readRcu = 0;
  let readWcu = 0;
  for (const r of reads) {
    // The single-item answer's units come from the reads bench (90 days of history), the rest from the cost bench.
    readRcu += r.count * (r.route === 'item' ? itemRcu() : readFig(r.route, 'rcu'));
    readWcu += r.count * readFig(r.route, 'wcu');
  }
  add(
    'DynamoDB reads: API reads',
    readRcu * rru + readWcu * wru,
    `${M(readRcu)} read units, ${M(readWcu)} write units (${reads.map((r) => `${r.route} ${M(r.count)}${r.miss < 1 ? ` ${Math.round(r.miss * 100)}% missing the cache` : ''}${r.historyMiss === undefined ? '' : `, its history shards ${Math.round(r.historyMiss * 100)}%`}`).join(', ')})`,
  );
  const hourRcu = hours * fig('cost.hour.rcu');
  const hourWcu = hours * fig('cost.hour.wcu');
  add(
    'DynamoDB units: hourly jobs',
    hourRcu * rru + hourWcu * wru,
    `${M(hourRcu)} read, ${M(hourWcu)} write units (seal, snapshot, items, retention, sweeps; ${hours} market-hours)`,
  );
  const anonRcu = anonymous.reduce((n, a) => n + a.origin * fig(`cost.anon.${a.route}.rcu`), 0);
  const anonWcu = anonymous.reduce((n, a) => n + a.origin * fig(`cost.anon.${a.route}.wcu`), 0);
  add(
    'DynamoDB units: anonymous misses',
    anonRcu * rru + anonWcu * wru,
    `${M(anonRcu)} read, ${M(anonWcu)} write units (${anonymous.map((a) => `${a.route} ${M(a.origin)} of ${M(a.requests)}`).join(', ')} reach the origin)`,
  );
  const connRcu = connects * fig('cost.connect.rcu');
  const connWcu = connects * fig('cost.connect.wcu');
  add('DynamoDB units: sockets', connRcu * rru + connWcu * wru, `${M(connRcu)} read, ${M(connWcu)} write units (${M(connects)} connects)`);

  // Storage a month leaves behind: measured on a reduced market over 30 days with retention, then scaled.
  const keyScale = scenario.keysPerMarket / fig('cost.storage.keys');
  const mergeScale = scenario.mergesPerMarketPerDay / fig('cost.storage.merges_per_day');
  const perMarket = scenario.markets / fig('cost.storage.markets');
  const tableGb = (fig('cost.storage.table_bytes') * keyScale * perMarket) / GB;
  add('DynamoDB storage', tableGb * prices.dynamodb_storage_gb_month, `${tableGb.toFixed(2)} GB-month`);
  const mergeBytes = fig('cost.storage.merge_bytes');
  const bucketGb = (((fig('cost.storage.bucket_bytes') - mergeBytes) * keyScale + mergeBytes * keyScale * mergeScale) * perMarket) / GB;
  add('S3 storage', bucketGb * prices.s3_storage_gb_month, `${bucketGb.toFixed(2)} GB-month (books and change files scaled by merges, the rest by keys)`);

  // Lambda: measured wall ms × configured memory, per function; requests per invocation.
  const gbs = new Map<string, number>();
  let requests = 0;
  /** Invocations in the month by function (X-Ray samples each function's own). */
  const invocations = new Map<string, number>();
  const invoked = (fn: string, n: number): void => {
    invocations.set(fn, (invocations.get(fn) ?? 0) + n);
  };
  const scheduled = new Set(topology.schedules.map((s) => s.function));
  for (const { event, count, miss } of events) {
    const warmMs = miss !== undefined && miss < 1 ? perFunction(`${event}.warm`, 'ms') : null;
    for (const [fn, freshMs] of perFunction(event, 'ms')) {
      const w = warmMs?.get(fn);
      const ms = w === undefined || miss === undefined ? freshMs : w + (freshMs - w) * miss;
      const scaled = fn === 'fanout' ? ms * socketScale : ms;
      gbs.set(fn, (gbs.get(fn) ?? 0) + (count * scaled * memoryGb(fn)) / 1000);
    }
    // Scheduled functions are invoked by the manifest's rate, whatever the local catch-up runs measured.
    for (const [fn, calls] of perFunction(event, 'calls')) {
      if (event === 'hour' && scheduled.has(fn)) continue;
      requests += count * calls;
      invoked(fn, count * calls);
    }
  }
  const scheduleRuns = topology.schedules.reduce((s, sc) => s + (days * 24 * 60) / sc.everyMinutes, 0);
  for (const sc of topology.schedules) invoked(sc.function, (days * 24 * 60) / sc.everyMinutes);
  requests += scheduleRuns;
  for (const [fn, v] of gbs) add(lambdaLine(fn), v * prices.lambda_gb_second, `${Math.round(v)} GB-s (${memoryGb(fn) * 1024} MB)`);
  add('Lambda requests', (requests / 1e6) * prices.lambda_requests_per_million, `${M(requests)} invocations`);

  // API Gateway: every API read and upload is an HTTP API request per started 512 KB.
  let httpRequests = merges * fig('cost.merge.http_requests');
  for (const r of reads) httpRequests += r.count * Math.max(1, Math.ceil(readFig(r.route, 'bytes') / HTTP_METER_BYTES));
  for (const a of anonymous) httpRequests += a.origin * Math.max(1, Math.ceil(fig(`cost.anon.${a.route}.bytes`) / HTTP_METER_BYTES));
  add('API Gateway HTTP requests', (httpRequests / 1e6) * prices.http_api_requests_per_million, `${M(httpRequests)} metered requests`);
  const wsMessages =
    scenario.socketsAllDay * days * (scenario.mergesPerMarketPerDay * fig('cost.merge.ws_messages_per_socket') + 24 * fig('cost.hour.ws_messages_per_socket')) +
    connects * fig('cost.connect.ws_messages');
  add('WebSocket messages', (wsMessages / 1e6) * prices.websocket_messages_per_million, `${M(wsMessages)} messages (each socket hears its market's merges)`);
  const minutes = scenario.socketsAllDay * 24 * 60 * days;
  add('WebSocket connection minutes', (minutes / 1e6) * prices.websocket_connection_minutes_per_million, `${M(minutes)} minutes`);

  // S3 requests (DELETE is free).
  const anonFig = (what: string): number => anonymous.reduce((n, a) => n + a.origin * fig(`cost.anon.${a.route}.${what}`), 0);
  const s3Put =
    merges * fig('cost.merge.s3_put') +
    hours * fig('cost.hour.s3_put') +
    reads.reduce((s, r) => s + r.count * readFig(r.route, 's3_put'), 0) +
    anonFig('s3_put');
  const s3Get =
    merges * fig('cost.merge.s3_get') +
    hours * fig('cost.hour.s3_get') +
    reads.reduce((s, r) => s + r.count * readFig(r.route, 's3_get'), 0) +
    anonFig('s3_get');
  add(
    'S3 PUT/LIST requests',
    (s3Put / 1000) * prices.s3_put_copy_post_list_per_thousand,
    `${M(s3Put)} requests (hourly files, change files, snapshots, books)`,
  );
  add('S3 GET requests', (s3Get / 1000) * prices.s3_get_head_per_thousand, `${M(s3Get)} requests`);

  // SQS: each merge message is sent, received and deleted; Lambda's pollers long-poll (20 s) every queue all month.
  const pollsPerQueue = scenario.sqsPollersPerQueue * 3 * 60 * 24 * days;
  const fifo = merges * fig('cost.merge.sqs_messages') * 3 + topology.fifoQueues * pollsPerQueue;
  const standard = topology.standardQueues * pollsPerQueue;
  add(
    'SQS requests',
    (fifo / 1e6) * prices.sqs_fifo_requests_per_million + (standard / 1e6) * prices.sqs_standard_requests_per_million,
    `${M(fifo)} FIFO, ${M(standard)} standard (mostly idle long polls)`,
  );
  add(
    'EventBridge schedules',
    (scheduleRuns / 1e6) * prices.eventbridge_scheduler_invocations_per_million,
    `${M(scheduleRuns)} scheduled invocations (priced as EventBridge Scheduler; scheduled rules are free)`,
  );
  const cdn = scenario.hourlyFileClients * scenario.hourlyFileRequestsPerClientHour * 24 * days;
  add('CloudFront requests (hourly files)', (cdn / 10_000) * prices.cloudfront_https_requests_per_10000, `${M(cdn)} HTTPS requests (egress excluded)`);

  // The operator's lines: the functions' measured log and EMF lines per event (a cached read's at its miss rate).
  const logOf = (what: string): number =>
    merges * fig(`cost.merge.${what}`) +
    hours * fig(`cost.hour.${what}`) +
    connects * fig(`cost.connect.${what}`) +
    reads.reduce((n, r) => n + r.count * readFig(r.route, what), 0) +
    anonFig(what);
  const signedInReads = reads.reduce((n, r) => n + r.count, 0);
  const uploads = merges * fig('cost.merge.http_requests');
  const anonymousRequests = anonymous.reduce((n, a) => n + a.requests, 0);
  lines.push(
    ...operationsLines({
      scenario,
      prices,
      topology,
      facts,
      invocations,
      functionLogBytes: logOf('log_bytes'),
      functionLogLines: logOf('log_lines'),
      emfBytes: logOf('emf_bytes'),
      emfLines: logOf('emf_lines'),
      httpApiRequests: signedInReads + uploads + anonymous.reduce((n, a) => n + a.origin, 0),
      edgeRequests: signedInReads + uploads + connects + anonymousRequests,
      anonymousRequests,
      anonymousBytes: anonymous.reduce((n, a) => n + a.requests * fig(`cost.anon.${a.route}.bytes`), 0),
    }),
  );

  const rounded = lines.map((l) => ({ ...l, usd_month: Math.round(l.usd_month * 100) / 100 })).sort((a, b) => b.usd_month - a.usd_month);
  const total = Math.round(lines.reduce((s, l) => s + l.usd_month, 0) * 100) / 100;
  const biggest = rounded[0].name;
  const halve =
    HALVE[biggest] ??
    (biggest.startsWith('Lambda ')
      ? 'give the function half the memory if its measured duration does not double (it is billed per GB-second), or cut the work per invocation'
      : 'no advice recorded');
  return { total_usd_month: total, lines: rounded, biggest, halve, invocations: Object.fromEntries(invocations) };
}
