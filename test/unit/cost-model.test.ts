import { describe, expect, it } from 'vitest';
import { type CostTopology, cacheMissRate, costModel, type Figure, MissingFigureError, type Prices } from '../../scripts/cost/model';
import type { Scenario } from '../../scripts/cost/scenario';

// A month of one day, one market, round prices: every line below is worked out by hand in its comment.
const scenario: Scenario = {
  markets: 1,
  keysPerMarket: 1000,
  mergesPerMarketPerDay: 10,
  apiReadsPerDay: 100,
  readMix: { item: 1 },
  socketsAllDay: 1,
  socketConnectsPerDay: 1,
  hourlyFileClients: 1,
  hourlyFileRequestsPerClientHour: 1,
  sqsPollersPerQueue: 0,
  apiInstances: 2,
  readCaches: { item: { entriesPerMarket: 5, validFor: 'merge' } },
  daysPerMonth: 1,
};

const prices: Prices = {
  as_of: 'test',
  dynamodb_write_request_unit_per_million: 1e6, // $1 a write unit
  dynamodb_read_request_unit_per_million: 5e5, // $0.50 a read unit
  dynamodb_storage_gb_month: 1,
  lambda_gb_second: 1,
  lambda_requests_per_million: 1e6,
  http_api_requests_per_million: 1e6,
  websocket_messages_per_million: 1e6,
  websocket_connection_minutes_per_million: 1000, // $0.001 a minute
  s3_put_copy_post_list_per_thousand: 1000,
  s3_get_head_per_thousand: 1000,
  s3_storage_gb_month: 1,
  sqs_fifo_requests_per_million: 1e6,
  sqs_standard_requests_per_million: 1e6,
  eventbridge_scheduler_invocations_per_million: 1e6,
  cloudfront_https_requests_per_10000: 10_000,
};

const topology: CostTopology = {
  memoryMb: { merge: 2048, seal: 1024, 'ws-connect': 512, api: 1024 },
  schedules: [{ function: 'seal', everyMinutes: 60 }],
  fifoQueues: 1,
  standardQueues: 0,
};

const GB = 1024 ** 3;
const figures: Figure[] = Object.entries({
  'cost.merge.rcu': 2,
  'cost.merge.wcu': 3,
  'cost.merge.s3_put': 1,
  'cost.merge.s3_get': 1,
  'cost.merge.ms.merge': 1000,
  'cost.merge.calls.merge': 1,
  'cost.merge.sqs_messages': 1,
  'cost.merge.http_requests': 1,
  'cost.merge.sockets': 1,
  'cost.merge.ws_messages_per_socket': 1,
  'cost.hour.rcu': 1,
  'cost.hour.wcu': 1,
  'cost.hour.s3_put': 1,
  'cost.hour.s3_get': 0,
  'cost.hour.ms.seal': 500,
  'cost.hour.calls.seal': 1,
  'cost.hour.ws_messages_per_socket': 0,
  'cost.connect.rcu': 0,
  'cost.connect.wcu': 2,
  'cost.connect.ms.ws-connect': 100,
  'cost.connect.calls.ws-connect': 1,
  'cost.connect.ws_messages': 1,
  'read.item_read_units': 4,
  'cost.read.item.wcu': 0,
  'cost.read.item.s3_put': 0,
  'cost.read.item.s3_get': 0,
  'cost.read.item.ms.api': 10,
  'cost.read.item.calls.api': 1,
  'cost.read.item.bytes': 600_000,
  'cost.storage.table_bytes': GB,
  'cost.storage.bucket_bytes': GB,
  'cost.storage.merge_bytes': 0,
  'cost.storage.keys': 1000,
  'cost.storage.merges_per_day': 10,
  'cost.storage.markets': 1,
  'unrelated.new_figure': 99,
}).map(([name, value]) => ({ name, value }));

/** The same figures with a warm instance's single-item read: 1 read unit, 2 ms. */
const warmFigures: Figure[] = [
  ...figures,
  { name: 'read.item_read_units_warm', value: 1 },
  { name: 'cost.read.item.warm.rcu', value: 1 },
  { name: 'cost.read.item.warm.wcu', value: 0 },
  { name: 'cost.read.item.warm.s3_put', value: 0 },
  { name: 'cost.read.item.warm.s3_get', value: 0 },
  { name: 'cost.read.item.warm.ms.api', value: 2 },
  { name: 'cost.read.item.warm.calls.api', value: 1 },
  { name: 'cost.read.item.warm.bytes', value: 600_000 },
];
describe('cost model', () => {
  it('bills a hand-checked small month to the cent', () => {
    const report = costModel(figures, scenario, prices, topology);
    const line = (name: string) => report.lines.find((l) => l.name === name)?.usd_month;
    expect(line('DynamoDB writes: merges')).toBe(30); // 10 merges × 3 WCU × $1
    expect(line('DynamoDB reads: merges')).toBe(10); // 10 × 2 RCU × $0.50
    expect(line('DynamoDB reads: API reads')).toBe(200); // 100 item reads × 4 RCU (read.item_read_units) × $0.50
    expect(line('DynamoDB units: hourly jobs')).toBe(36); // 24 market-hours × (1 RCU × $0.50 + 1 WCU × $1)
    expect(line('DynamoDB units: sockets')).toBe(2); // 1 connect × 2 WCU
    expect(line('DynamoDB storage')).toBe(1); // 1 GB
    expect(line('S3 storage')).toBe(1);
    expect(line('Lambda merge (GB-s)')).toBe(20); // 10 × 1 s × 2 GB
    expect(line('Lambda seal (GB-s)')).toBe(12); // 24 × 0.5 s × 1 GB
    expect(line('Lambda ws-connect (GB-s)')).toBe(0.05); // 1 × 0.1 s × 0.5 GB
    expect(line('Lambda api (GB-s)')).toBe(1); // 100 × 0.01 s × 1 GB
    expect(line('Lambda requests')).toBe(135); // 10 merge + 1 connect + 100 api + 24 scheduled seal runs (the measured seal call is not added again)
    expect(line('API Gateway HTTP requests')).toBe(210); // 10 uploads + 100 reads × 2 (600 000 B is two 512 KB meters)
    expect(line('WebSocket messages')).toBe(11); // 1 socket × 10 merges + 1 hello
    expect(line('WebSocket connection minutes')).toBe(1.44); // 1440 minutes × $0.001
    expect(line('S3 PUT/LIST requests')).toBe(34); // 10 merges + 24 hours
    expect(line('S3 GET requests')).toBe(10);
    expect(line('SQS requests')).toBe(30); // 10 messages × send, receive, delete; no pollers
    expect(line('EventBridge schedules')).toBe(24);
    expect(line('CloudFront requests (hourly files)')).toBe(24); // 1 client × 1 file × 24 hours
    expect(report.total_usd_month).toBe(792.49);
    expect(report.lines).toHaveLength(20);
    expect(report.biggest).toBe('API Gateway HTTP requests');
    expect(report.halve).toMatch(/CloudFront/);
  });

  it('scales the reduced storage run by keys, merges and markets', () => {
    const scaled = figures.map((f) =>
      f.name === 'cost.storage.keys'
        ? { ...f, value: 100 }
        : f.name === 'cost.storage.merges_per_day'
          ? { ...f, value: 5 }
          : f.name === 'cost.storage.merge_bytes'
            ? { ...f, value: GB / 4 }
            : f,
    );
    const report = costModel(scaled, { ...scenario, markets: 2, readMix: { item: 1 } }, prices, topology);
    const line = (name: string) => report.lines.find((l) => l.name === name)?.usd_month;
    expect(line('DynamoDB storage')).toBe(20); // 1 GB × 10 (keys) × 2 (markets)
    expect(line('S3 storage')).toBe(25); // (0.75 GB × 10 + 0.25 GB × 10 × 2 merges) × 2 markets
  });

  it.each(['cost.merge.wcu', 'read.item_read_units', 'cost.storage.table_bytes', 'cost.read.item.bytes'])('fails naming the missing figure %s', (name) => {
    const without = figures.filter((f) => f.name !== name);
    expect(() => costModel(without, scenario, prices, topology)).toThrow(MissingFigureError);
    expect(() => costModel(without, scenario, prices, topology)).toThrow(`"${name}"`);
  });

  it('a cache miss rate: once per entry each instance touches in the period', () => {
    expect(cacheMissRate(1, 1, 16)).toBe(1); // the one read misses
    expect(cacheMissRate(100, 1, 1)).toBeCloseTo(0.01, 10); // one entry, one instance: 1 miss in 100
    expect(cacheMissRate(100, 4, 1)).toBeCloseTo(0.04, 10); // each of 4 instances misses once
    // 2 reads per instance over 2 entries: expected distinct entries 2 × (1 − 1/4) = 1.5 per instance
    expect(cacheMissRate(4, 2, 2)).toBeCloseTo(0.75, 10);
    expect(cacheMissRate(0, 2, 2)).toBe(1);
    // The scenario's item reads: 100 000 a market a day over 300 merges, 6 instances, 16 shards
    expect(cacheMissRate(100_000 / 300, 6, 16)).toBeGreaterThan(0.27);
    expect(cacheMissRate(100_000 / 300, 6, 16)).toBeLessThan(0.29);
  });

  it('prices a cached route as warm + (fresh − warm) × its miss rate, and a route without warm figures fresh', () => {
    const warm = warmFigures;
    // 100 reads a day over 10 merges: 10 reads a period, 2 instances, 5 entries: 5 × (1 − 0.8^5) = 3.36 touched each.
    const miss = cacheMissRate(10, 2, 5);
    expect(miss).toBeCloseTo(0.67232, 5);
    const report = costModel(warm, scenario, prices, topology);
    const line = (name: string) => report.lines.find((l) => l.name === name)?.usd_month;
    expect(line('DynamoDB reads: API reads')).toBe(Math.round(100 * (1 + 3 * miss) * 0.5 * 100) / 100);
    expect(line('Lambda api (GB-s)')).toBe(Math.round(100 * (0.002 + 0.008 * miss) * 100) / 100);
    // Without warm figures (the first test) the same reads cost the fresh 4 units each.
    expect(costModel(figures, scenario, prices, topology).lines.find((l) => l.name === 'DynamoDB reads: API reads')?.usd_month).toBe(200);
    // Warm figures without the reads bench's warm item figure: an error naming it.
    expect(() =>
      costModel(
        warm.filter((f) => f.name !== 'read.item_read_units_warm'),
        scenario,
        prices,
        topology,
      ),
    ).toThrow('"read.item_read_units_warm"');
  });

  it('prices an item’s history shards at their own miss rate (a day, their own entries) and the page shards at the route’s', () => {
    const warm: Figure[] = [...warmFigures, { name: 'read.item_read_units_new', value: 3 }];
    const twoTier: Scenario = { ...scenario, readCaches: { item: { entriesPerMarket: 5, validFor: 'merge', history: { entriesPerMarket: 4 } } } };
    // Pages: 10 reads a merge as above. History: the day's 100 reads, 2 instances, 4 entries: 50 reads each
    // touch all 4 (4 × (1 − 0.75^50) ≈ 4), so 8 misses in 100.
    const pages = cacheMissRate(10, 2, 5);
    const history = cacheMissRate(100, 2, 4);
    expect(history).toBeCloseTo(0.08, 5);
    // Fresh 4 = warm 1 + history 2 (new 3 − warm 1) + pages 1 (fresh 4 − new 3): 1 + 2 × 0.08 + 1 × 0.67232.
    const report = costModel(warm, twoTier, prices, topology);
    const units = 1 + 2 * history + 1 * pages;
    expect(report.lines.find((l) => l.name === 'DynamoDB reads: API reads')?.usd_month).toBe(Math.round(100 * units * 0.5 * 100) / 100);
    expect(report.lines.find((l) => l.name === 'DynamoDB reads: API reads')?.detail).toContain('its history shards 8%');
    // The history part needs the bench's figure of an item whose history shard was not read.
    expect(() =>
      costModel(
        warm.filter((f) => f.name !== 'read.item_read_units_new'),
        twoTier,
        prices,
        topology,
      ),
    ).toThrow('"read.item_read_units_new"');
  });

  it('fails naming a function the manifest does not have', () => {
    expect(() => costModel([...figures, { name: 'cost.merge.ms.ghost', value: 1 }], scenario, prices, topology)).toThrow(/"ghost"/);
  });
});
