import { describe, expect, it } from 'vitest';
import { type CostTopology, cacheMissRate, costModel, type Figure, MissingFigureError, type Prices } from '../../scripts/cost/model';
import { accessLogLineBytes, LOG_EVENT_OVERHEAD_BYTES, platformLogBytes } from '../../scripts/cost/operations';
import type { Scenario } from '../../scripts/cost/scenario';
import type { TemplateFacts } from '../../scripts/cost/template';

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
  // No anonymous reads, no secrets read: the operator's lines are checked in cost-operations.test.ts.
  anonymousReads: {},
  cdnCaches: 1,
  warmInstancesPerFunction: 1,
  coldStartsPerInstancePerDay: 1,
  uploadRefusalCodes: 1,
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
  // The operator's lines at no price here (cost-operations.test.ts prices them): this month's total stays the requests'.
  cloudwatch_logs_ingestion_per_gb: 0,
  cloudwatch_logs_storage_gb_month: 0,
  cloudwatch_custom_metric_month: 0,
  cloudwatch_alarm_metric_month: 0,
  cloudwatch_high_resolution_alarm_metric_month: 0,
  cloudwatch_dashboard_month: 0,
  xray_traces_recorded_per_million: 0,
  waf_web_acl_month: 0,
  waf_rule_month: 0,
  waf_requests_per_million: 0,
  secrets_manager_secret_month: 0,
  secrets_manager_api_calls_per_10000: 0,
  cloudfront_data_transfer_out_per_gb: 0,
  cloudfront_functions_invocations_per_million: 0,
};

const topology: CostTopology = {
  memoryMb: { merge: 2048, seal: 1024, 'ws-connect': 512, api: 1024 },
  schedules: [{ function: 'seal', everyMinutes: 60 }],
  fifoQueues: 1,
  standardQueues: 0,
  markets: 1,
  httpFunctions: ['api'],
  marketWriters: ['merge'],
  secretsByFunction: {},
  originSecretRefreshMinutes: 5,
};

const facts: TemplateFacts = {
  alarms: 0,
  alarmMetrics: 0,
  highResolutionAlarmMetrics: 0,
  dashboards: 0,
  secrets: 0,
  webAcls: 0,
  webAclRules: 0,
  tracedFunctions: [],
  accessLogFormats: [],
  logRetentionDays: 30,
  edgeFunctionsPerRequest: 1,
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
  // The functions' measured log and EMF lines per event (priced in cost-operations.test.ts).
  ...Object.fromEntries(
    ['merge', 'hour', 'connect', 'read.item'].flatMap((e) => ['log_bytes', 'log_lines', 'emf_bytes', 'emf_lines'].map((w) => [`cost.${e}.${w}`, 0])),
  ),
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
  ...['log_bytes', 'log_lines', 'emf_bytes', 'emf_lines'].map((w) => ({ name: `cost.read.item.warm.${w}`, value: 0 })),
];
describe('cost model', () => {
  it('bills a hand-checked small month to the cent', () => {
    const report = costModel(figures, scenario, prices, topology, facts);
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
    // New with issue 26 point 9: the API traffic passes through CloudFront, which bills each request.
    expect(line('CloudFront: signed-in traffic')).toBe(111); // 100 reads + 10 uploads + 1 socket upgrade
    expect(report.total_usd_month).toBe(903.49);
    // 20 lines of requests and storage, the anonymous reads' DynamoDB units and the operator's 11 lines (at $0 here).
    expect(report.lines).toHaveLength(32);
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
    const report = costModel(scaled, { ...scenario, markets: 2, readMix: { item: 1 } }, prices, topology, facts);
    const line = (name: string) => report.lines.find((l) => l.name === name)?.usd_month;
    expect(line('DynamoDB storage')).toBe(20); // 1 GB × 10 (keys) × 2 (markets)
    expect(line('S3 storage')).toBe(25); // (0.75 GB × 10 + 0.25 GB × 10 × 2 merges) × 2 markets
  });

  it.each(['cost.merge.wcu', 'read.item_read_units', 'cost.storage.table_bytes', 'cost.read.item.bytes'])('fails naming the missing figure %s', (name) => {
    const without = figures.filter((f) => f.name !== name);
    expect(() => costModel(without, scenario, prices, topology, facts)).toThrow(MissingFigureError);
    expect(() => costModel(without, scenario, prices, topology, facts)).toThrow(`"${name}"`);
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
    const report = costModel(warm, scenario, prices, topology, facts);
    const line = (name: string) => report.lines.find((l) => l.name === name)?.usd_month;
    expect(line('DynamoDB reads: API reads')).toBe(Math.round(100 * (1 + 3 * miss) * 0.5 * 100) / 100);
    expect(line('Lambda api (GB-s)')).toBe(Math.round(100 * (0.002 + 0.008 * miss) * 100) / 100);
    // Without warm figures (the first test) the same reads cost the fresh 4 units each.
    expect(costModel(figures, scenario, prices, topology, facts).lines.find((l) => l.name === 'DynamoDB reads: API reads')?.usd_month).toBe(200);
    // Warm figures without the reads bench's warm item figure: an error naming it.
    expect(() =>
      costModel(
        warm.filter((f) => f.name !== 'read.item_read_units_warm'),
        scenario,
        prices,
        topology,
        facts,
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
    const report = costModel(warm, twoTier, prices, topology, facts);
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
        facts,
      ),
    ).toThrow('"read.item_read_units_new"');
  });

  it('logs: the functions’ measured lines and bytes, Lambda’s own lines per invocation and an access line per HTTP API request', () => {
    const withLogs = (logBytes: number): Figure[] =>
      figures.map((f) =>
        f.name === 'cost.merge.log_bytes'
          ? { ...f, value: logBytes }
          : f.name === 'cost.merge.log_lines'
            ? { ...f, value: 2 }
            : f.name === 'cost.merge.emf_bytes'
              ? { ...f, value: 500 }
              : f.name === 'cost.merge.emf_lines'
                ? { ...f, value: 1 }
                : f,
      );
    const format = '{"requestId":"$context.requestId","status":"$context.status"}';
    const perByte: Prices = { ...prices, cloudwatch_logs_ingestion_per_gb: GB }; // $1 a byte
    const ingestion = (logBytes: number) =>
      costModel(withLogs(logBytes), scenario, perByte, topology, { ...facts, accessLogFormats: [format] }).lines.find(
        (l) => l.name === 'CloudWatch Logs ingestion',
      )?.usd_month;
    // 10 merges × (1000 B in 2 lines + 500 B of EMF in 1 line, 26 B an event) + 135 invocations × Lambda's
    // START/END/REPORT + 110 HTTP API requests (100 reads, 10 uploads) × one access line.
    const expected =
      10 * (1000 + 2 * LOG_EVENT_OVERHEAD_BYTES + 500 + LOG_EVENT_OVERHEAD_BYTES) + 135 * platformLogBytes(false) + 110 * accessLogLineBytes(format);
    expect(ingestion(1000)).toBe(expected);
    // Log bytes follow the measured sizes: 1000 more bytes a merge, 10 000 more bytes a month.
    expect(ingestion(2000)).toBe(expected + 10_000);
    // Kept for the groups' retention: 30 days of this one-day month's ingestion.
    const stored = costModel(withLogs(1000), scenario, { ...prices, cloudwatch_logs_storage_gb_month: GB }, topology, { ...facts, accessLogFormats: [format] });
    expect(stored.lines.find((l) => l.name === 'CloudWatch Logs storage')?.usd_month).toBe(30 * expected);
  });

  it('anonymous reads: CloudFront bills every request and byte, the origin only the misses the TTL leaves', () => {
    const anon: Figure[] = [
      ...figures,
      ...Object.entries({
        rcu: 2,
        wcu: 0,
        s3_put: 0,
        s3_get: 0,
        'ms.api': 100,
        'calls.api': 1,
        bytes: 1000,
        log_bytes: 0,
        log_lines: 0,
        emf_bytes: 0,
        emf_lines: 0,
      }).map(([what, value]) => ({ name: `cost.anon.page.${what}`, value })),
    ];
    // One URL read once a second by one cache, kept 299 s: each miss is followed by 299 hits, 1 in 300 misses.
    const withAnon: Scenario = { ...scenario, anonymousReads: { page: { perDay: 86_400, urls: 1, ttl: { seconds: 299 } } }, cdnCaches: 1 };
    const report = costModel(anon, withAnon, { ...prices, cloudfront_data_transfer_out_per_gb: GB / 1000 }, topology, facts);
    const line = (name: string) => report.lines.find((l) => l.name === name)?.usd_month;
    expect(line('CloudFront: anonymous reads')).toBe(86_400 + 86_400); // 86 400 requests × $1 + 86.4 MB × $0.001 a byte
    expect(line('DynamoDB units: anonymous misses')).toBe(288 * 2 * 0.5); // 288 misses × 2 RCU × $0.50
    expect(line('API Gateway HTTP requests')).toBe(210 + 288);
    expect(line('Lambda requests')).toBe(135 + 288);
    expect(line('Lambda api (GB-s)')).toBe(1 + 28.8); // 288 × 0.1 s × 1 GB
    // A bench without the route's figures cannot price it.
    expect(() => costModel(figures, withAnon, prices, topology, facts)).toThrow('"cost.anon.page.');
  });

  it('fails naming a function the manifest does not have', () => {
    expect(() => costModel([...figures, { name: 'cost.merge.ms.ghost', value: 1 }], scenario, prices, topology, facts)).toThrow(/"ghost"/);
  });
});
