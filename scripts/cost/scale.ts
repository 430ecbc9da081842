/**
 * Scale past one machine, on paper (issue 27 point 5): the cost scenario (scripts/cost/scenario.ts) times a
 * factor — sockets, API reads and uploads all multiplied, keys per market as given — checked against the
 * AWS quotas and partition limits it meets first. Pure: the measured inputs (fan-out CPU per 1000 sockets,
 * merge CPU, wall and write units per partition at a market size) come from test/bench/scale.ts; the quotas
 * are AWS's defaults, each with the page that states it.
 *
 * Each check is a demand against a capacity, both per second (or a ratio of time); every demand grows as a
 * power of the factor (0: not at all, 1: linearly, 2: the fan-out's in-flight invocations, more merges each
 * posting to more sockets), so `breaksAt` (the factor where demand reaches capacity) is exact within the model.
 * The assumptions that are not AWS's (peak over average, the reconnect window, the live target) are named
 * constants below, so docs/scale.md can state them and a reader can change them.
 */
import type { Scenario } from './scenario';

/** AWS's default quotas the scenario meets, with where they are stated (looked up 2026-11-28). */
export const QUOTAS = {
  wsNewConnectionsPerSecond: {
    value: 500,
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-execution-service-websocket-limits-table.html',
  },
  /** Shared by HTTP APIs, WebSocket APIs and the WebSocket callback API (`PostToConnection`), per account and Region. */
  apiGatewayAccountRps: { value: 10_000, source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html' },
  lambdaConcurrentExecutions: { value: 1000, source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html' },
  dynamoPartitionRcu: {
    value: 3000,
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  dynamoPartitionWcu: {
    value: 1000,
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  dynamoItemBytes: { value: 400 * 1024, source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html' },
  s3PutPerPrefix: { value: 3500, source: 'https://docs.aws.amazon.com/AmazonS3/latest/userguide/optimizing-performance.html' },
  cloudFrontRpsPerDistribution: {
    value: 250_000,
    source: 'https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html',
  },
} as const;

/** Busiest second over the day's average second, for API reads (a stated assumption, not a measurement). */
export const PEAK_OVER_AVERAGE = 3;
/** A deploy or a network blip drops every socket: all should be back within this (a design target). */
export const RECONNECT_WINDOW_S = 60;
/** A merge's `ah` reaches every socket of its market within this (the `live.fanout_2000_ms` target). */
export const LIVE_TARGET_S = 2;
/** The share of a vCPU Lambda gives per MB (1769 MB is one vCPU). */
export const MB_PER_VCPU = 1769;
/** Hourly file clients fetch within this many seconds after the hour (a stated assumption). */
export const HOURLY_FETCH_WINDOW_S = 60;
/** Wall seconds of an API answer and of an upload, for concurrency (the bench's p50s, rounded up). */
export const API_ANSWER_S = 0.03;
export const UPLOAD_S = 0.3;

/** What the local runtime measures (test/bench/scale.ts) at one market size. */
export interface MergeAtKeys {
  keys: number;
  /** CPU ms of one production merge of a complete book after a previous one. */
  cpuMs: number;
  /** Wall ms of the same merge on the local engines. */
  wallMs: number;
  /** Write units of that merge to its busiest partition key (one page's shards share a key). */
  hottestKeyWriteUnits: number;
  /** The largest item it writes, in bytes (DynamoDB's item limit is 400 KB). */
  largestItemBytes: number;
}

export interface ScaleInputs {
  /** CPU ms the fan-out spends per 1000 sockets of a market, posting through the production poster. */
  fanoutCpuMsPer1000: number;
  /** Read units of the META read each answer makes (a warm answer reads only META: `read.item_read_units_warm`). */
  metaReadUnits: number;
  merges: readonly MergeAtKeys[];
}

/** What the model needs of the manifest (shared/topology.ts). */
export interface ScaleTopology {
  fanoutMemoryMb: number;
  fanoutReservedConcurrency: number;
  mergeReservedConcurrency: number;
  /** Reserved concurrency of all functions (taken out of the account's pool). */
  reservedTotal: number;
}

export interface LimitCheck {
  /** Stable id (`ws.new_connections`, …). */
  id: string;
  what: string;
  capacity: number;
  demand: number;
  unit: string;
  /** The scale factor at which demand reaches capacity (Infinity when it does not grow with the factor). */
  breaksAt: number;
  source: string;
  /** The design change that lifts it. */
  lift: string;
}

const DAY_S = 86_400;

/**
 * Every limit checked at `factor` × the scenario with `keysPerMarket` keys; the merge figures for that market
 * size must be among the inputs (a missing size is an error, never an extrapolation).
 */
export function checkLimits(s: Scenario, inputs: ScaleInputs, topo: ScaleTopology, factor: number, keysPerMarket: number): LimitCheck[] {
  const merge = inputs.merges.find((m) => m.keys === keysPerMarket);
  if (!merge) throw new Error(`no merge figures at ${keysPerMarket} keys (have ${inputs.merges.map((m) => m.keys).join(', ') || 'none'})`);
  const sockets = s.socketsAllDay * factor;
  const socketsPerMarket = sockets / s.markets;
  const apiReadsPerS = (s.apiReadsPerDay * factor) / DAY_S;
  const mergesPerMarketPerS = (s.mergesPerMarketPerDay * factor) / DAY_S;
  const vcpu = topo.fanoutMemoryMb / MB_PER_VCPU;
  const fanoutS = (inputs.fanoutCpuMsPer1000 * (socketsPerMarket / 1000)) / 1000 / vcpu;
  const postsPerS = socketsPerMarket / LIVE_TARGET_S;
  const checks: Array<Omit<LimitCheck, 'breaksAt'> & { grows: 0 | 1 | 2 }> = [
    {
      id: 'ws.new_connections',
      what: `WebSocket new connections per second, every socket back within ${RECONNECT_WINDOW_S} s of a mass drop`,
      capacity: QUOTAS.wsNewConnectionsPerSecond.value,
      demand: sockets / RECONNECT_WINDOW_S,
      unit: 'connects/s',
      grows: 1,
      source: QUOTAS.wsNewConnectionsPerSecond.source,
      lift: 'raise the account quota (adjustable); the client already backs off with jitter, so past it a mass drop takes sockets ÷ quota seconds to heal',
    },
    {
      id: 'apigw.account_rps',
      what: `API Gateway requests per second (API reads at ${PEAK_OVER_AVERAGE}× average + PostToConnection of one market's merge within ${LIVE_TARGET_S} s)`,
      capacity: QUOTAS.apiGatewayAccountRps.value,
      demand: apiReadsPerS * PEAK_OVER_AVERAGE + postsPerS,
      unit: 'requests/s',
      grows: 1,
      source: QUOTAS.apiGatewayAccountRps.source,
      lift: 'raise the account quota (adjustable); serve hot reads from CloudFront; a socket per client for all markets instead of per market',
    },
    {
      id: 'lambda.fanout_time',
      what: `one fan-out invocation posts a merge to every socket of its market (${topo.fanoutMemoryMb} MB = ${vcpu.toFixed(2)} vCPU), within ${LIVE_TARGET_S} s`,
      capacity: LIVE_TARGET_S,
      demand: fanoutS,
      unit: 's',
      grows: 1,
      source: 'measured: scale.fanout_cpu_ms_per_1000',
      lift: 'fan out per hub (2000 sockets) in parallel invocations, or give the fan-out 1769+ MB (one vCPU)',
    },
    {
      id: 'lambda.fanout_reserved',
      what: 'fan-out invocations in flight (merges per second × fan-out seconds) vs its reserved concurrency',
      capacity: topo.fanoutReservedConcurrency,
      demand: s.markets * mergesPerMarketPerS * fanoutS,
      unit: 'invocations',
      grows: 2,
      source: 'shared/topology.ts FANOUT_CONCURRENCY',
      lift: 'raise FANOUT_CONCURRENCY with the account concurrency; per-hub fan-out needs one per hub in flight',
    },
    {
      id: 'lambda.account_concurrency',
      what: `unreserved Lambda concurrency (API answers ${API_ANSWER_S * 1000} ms at peak, uploads ${UPLOAD_S * 1000} ms)`,
      capacity: QUOTAS.lambdaConcurrentExecutions.value - topo.reservedTotal,
      demand: apiReadsPerS * PEAK_OVER_AVERAGE * API_ANSWER_S + s.markets * mergesPerMarketPerS * PEAK_OVER_AVERAGE * UPLOAD_S,
      unit: 'executions',
      grows: 1,
      source: QUOTAS.lambdaConcurrentExecutions.source,
      lift: 'raise the account quota (adjustable to tens of thousands)',
    },
    {
      id: 'merge.serial',
      what: `a market merges one batch at a time (FIFO group): merges per second × merge wall time at ${keysPerMarket} keys`,
      capacity: 1,
      demand: mergesPerMarketPerS * (merge.wallMs / 1000),
      unit: 'busy share',
      grows: 1,
      source: 'measured: scale.merge_<keys>.wall_ms; shared/topology.ts MERGE_QUEUES',
      lift: 'merge only the newest complete book of a batch (older ones only feed the scan log), or split a market by key range',
    },
    {
      id: 'ddb.meta_rcu',
      what: `a market's META item, read by every answer (${inputs.metaReadUnits} RCU each, ${PEAK_OVER_AVERAGE}× average)`,
      capacity: QUOTAS.dynamoPartitionRcu.value,
      demand: (apiReadsPerS / s.markets) * PEAK_OVER_AVERAGE * inputs.metaReadUnits,
      unit: 'RCU/s',
      grows: 1,
      source: QUOTAS.dynamoPartitionRcu.source,
      lift: 'read META eventually consistent (half the units) or keep it a second in the instance; split-for-heat cannot split one item',
    },
    {
      id: 'ddb.page_wcu',
      what: `the busiest partition key a merge writes (${merge.hottestKeyWriteUnits} WCU a merge at ${keysPerMarket} keys) × merges per second`,
      capacity: QUOTAS.dynamoPartitionWcu.value,
      demand: mergesPerMarketPerS * merge.hottestKeyWriteUnits,
      unit: 'WCU/s',
      grows: 1,
      source: QUOTAS.dynamoPartitionWcu.source,
      lift: 'spread a page’s shards over several partition keys (shard in the pk, not the sk)',
    },
    {
      id: 'ddb.item_size',
      what: `the largest item a merge writes at ${keysPerMarket} keys`,
      capacity: QUOTAS.dynamoItemBytes.value,
      demand: merge.largestItemBytes,
      unit: 'B',
      grows: 0,
      source: QUOTAS.dynamoItemBytes.source,
      lift: 'more key shards per page (PAGE_SHARDS, ROW_SHARDS), or parts under a head as history shards do',
    },
    {
      id: 's3.put_prefix',
      what: "PUTs per second under one market's prefix (book + change file per merge)",
      capacity: QUOTAS.s3PutPerPrefix.value,
      demand: mergesPerMarketPerS * 2,
      unit: 'PUT/s',
      grows: 1,
      source: QUOTAS.s3PutPerPrefix.source,
      lift: 'S3 partitions busy prefixes by itself; a hash in the key spreads them at once',
    },
    {
      id: 'cloudfront.rps',
      what: `CloudFront requests per second: hourly files fetched within ${HOURLY_FETCH_WINDOW_S} s of the hour + each socket's change file after an ah`,
      capacity: QUOTAS.cloudFrontRpsPerDistribution.value,
      demand: (s.hourlyFileClients * factor * s.hourlyFileRequestsPerClientHour) / HOURLY_FETCH_WINDOW_S + postsPerS,
      unit: 'requests/s',
      grows: 1,
      source: QUOTAS.cloudFrontRpsPerDistribution.source,
      lift: 'raise the distribution quota (adjustable); carry small changes inside the ah message',
    },
  ];
  return checks.map(({ grows, ...c }) => ({
    ...c,
    breaksAt:
      grows > 0
        ? c.demand > 0
          ? factor * (c.capacity / c.demand) ** (1 / grows)
          : Number.POSITIVE_INFINITY
        : c.demand > c.capacity
          ? 0
          : Number.POSITIVE_INFINITY,
  }));
}

/** The limits broken at this scale (demand over capacity), the first to break (lowest factor) first. */
export function brokenLimits(checks: readonly LimitCheck[]): LimitCheck[] {
  return checks.filter((c) => c.demand > c.capacity).sort((a, b) => a.breaksAt - b.breaksAt);
}

/** The limit nearest to breaking: the lowest `breaksAt` (broken or not). */
export function nearestLimit(checks: readonly LimitCheck[]): LimitCheck {
  return [...checks].sort((a, b) => a.breaksAt - b.breaksAt)[0];
}
