/**
 * The one scenario `npm run cost` prices (docs/cost.md repeats it). Issue 15, point 6:
 * 6 markets × 300 merges a day, 1 million API reads a day, 2000 sockets connected all day, the hourly files
 * read by 10000 clients, and the storage a month of that leaves behind. The rest are stated assumptions.
 */
export interface Scenario {
  markets: number;
  /** Keys of each market: the bench's market (merge and read figures are measured at this size). */
  keysPerMarket: number;
  mergesPerMarketPerDay: number;
  apiReadsPerDay: number;
  /** Share of the API reads per measured read route (`cost.read.<route>.*` figures); sums to 1. */
  readMix: Record<string, number>;
  socketsAllDay: number;
  /** API Gateway closes a WebSocket after 2 hours at most: every socket reconnects 12 times a day. */
  socketConnectsPerDay: number;
  /** Clients reading the hourly files through CloudFront (requests only; egress is left out, as the issue says). */
  hourlyFileClients: number;
  /** Each client fetches the snapshot pointer and the hourly snapshot file of one market each hour. */
  hourlyFileRequestsPerClientHour: number;
  /** Lambda's SQS event source keeps long-polling (20 s) each queue with this many pollers, idle or not. */
  sqsPollersPerQueue: number;
  /**
   * API function instances serving the reads side by side, each with its own read cache (shared/market/read-cache.ts).
   * At 1 M reads a day (12 a second) of ~30 ms each the function needs under one instance on average; Lambda
   * spreads bursts over a few more and replaces each within hours. Priced as this many instances all day.
   */
  apiInstances: number;
  /**
   * Per read route: over how many cache entries a market's reads of that route spread (the key shards the
   * answer reads) and what empties them (`merge`: the market's next merge; `hour`: the next hour). A route not
   * named here is priced at its fresh-instance figures. `history`: the single-item route's history shards, a
   * cache of their own that only the daily compaction mark empties; the part of an answer's units they are
   * (`read.item_read_units_new` − warm) is priced at their miss rate, the rest at the route's.
   */
  readCaches: Record<string, { entriesPerMarket: number; validFor: 'merge' | 'hour'; history?: { entriesPerMarket: number } }>;
  daysPerMonth: number;
  /**
   * Anonymous reads of what CloudFront caches (issue 26 points 6 and 9), by the bench's route name
   * (test/bench/cost-units.ts `ANONYMOUS_ROUTES`): requests a day, the distinct URLs they spread over evenly,
   * and how long CloudFront keeps an answer (the origin's `Cache-Control` max-age, spec api.md): `hour` for
   * answers that expire at the top of the hour, null for an answer CloudFront does not cache.
   */
  anonymousReads: Record<string, { perDay: number; urls: number; ttl: { seconds: number } | 'hour' | null }>;
  /**
   * CloudFront caches that see the anonymous reads apart: each regional edge cache fills from the origin on its
   * own (no Origin Shield), so every URL misses once per cache per expiry.
   */
  cdnCaches: number;
  /**
   * Warm instances of each function through the day (the API's are `apiInstances`), and how often Lambda
   * replaces each (a cold start reads the function's secrets again). Prices the Secrets Manager calls.
   */
  warmInstancesPerFunction: number;
  coldStartsPerInstancePerDay: number;
  /** Distinct error codes of refused uploads in a month (each is a metric of its own: `uploads_refused` by `code`). */
  uploadRefusalCodes: number;
}

export const SCENARIO: Scenario = {
  markets: 6,
  keysPerMarket: 20_000,
  mergesPerMarketPerDay: 300,
  apiReadsPerDay: 1_000_000,
  readMix: { item: 0.6, item_candles: 0.2, market: 0.1, snapshot: 0.1 },
  socketsAllDay: 2000,
  socketConnectsPerDay: 12,
  hourlyFileClients: 10_000,
  hourlyFileRequestsPerClientHour: 2,
  sqsPollersPerQueue: 5,
  apiInstances: 6,
  // Item and candle answers read the key's row, day page and volume shards (16 key shards each, PAGE_SHARDS and
  // ROW_SHARDS), emptied by each merge; item answers also read the key's history shard (512, HISTORY_SHARDS),
  // kept until the next compaction mark (a day). Reads spread evenly over keys (no popular items).
  readCaches: {
    item: { entriesPerMarket: 16, validFor: 'merge', history: { entriesPerMarket: 512 } },
    item_candles: { entriesPerMarket: 16, validFor: 'merge' },
    market: { entriesPerMarket: 1, validFor: 'merge' },
    snapshot: { entriesPerMarket: 1, validFor: 'hour' },
  },
  daysPerMonth: 30,
  // 100 000 anonymous item page views a day, each loading the app (its configuration and `/me`), spread evenly
  // over every item of every market (no popular items, as the signed-in reads); readers of the public API on top.
  anonymousReads: {
    page: { perDay: 100_000, urls: 6 * 20_000, ttl: 'hour' },
    config: { perDay: 100_000, urls: 1, ttl: { seconds: 300 } },
    me: { perDay: 100_000, urls: 1, ttl: null },
    item_hourly: { perDay: 50_000, urls: 6 * 20_000, ttl: 'hour' },
    item_data: { perDay: 20_000, urls: 20_000, ttl: { seconds: 600 } },
    items_unknown: { perDay: 5_000, urls: 1, ttl: { seconds: 600 } },
  },
  cdnCaches: 4,
  warmInstancesPerFunction: 1,
  coldStartsPerInstancePerDay: 12,
  uploadRefusalCodes: 8,
};
