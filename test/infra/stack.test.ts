import { describe, expect, it } from 'vitest';
import { MERGE_BACKOFF_CAP_SECONDS, mergeRetryDelaySeconds } from '../../shared/domain/merge-retry';
import { FALLBACK_FUNCTION, FUNCTIONS, HTTP_ROUTES, MERGE_QUEUES, PUSH_QUEUE, QUEUES, SCHEDULES, STREAM_CONSUMER, WS_ROUTES } from '../../shared/topology';
import { type CfnResource, functionId, mentions, ofType, synth } from './synth';

const FOURTEEN_DAYS = 14 * 86_400;

const dev = () => synth('dev');
const production = () => synth('production');

/** The function an API Gateway v2 route's target integration invokes. */
function routeFunction(resources: Record<string, CfnResource>, route: CfnResource): string {
  const target = route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
  const integration = resources[target['Fn::Join'][1][1].Ref];
  return JSON.stringify(integration.Properties.IntegrationUri).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)?.[1] ?? '';
}

/** Minutes of an EventBridge `rate(...)` expression. */
function rateMinutes(expression: string): number {
  const [, n, unit] = expression.match(/^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/) ?? [];
  const per = unit.startsWith('minute') ? 1 : unit.startsWith('hour') ? 60 : 1440;
  return Number(n) * per;
}

describe('stack built from the manifest', () => {
  it('skips bundling in tests, so no esbuild runs', () => {
    expect(dev().stack.bundlingRequired).toBe(false);
  });

  it('creates one function per manifest entry, plus the website deployment provider, and the auto-delete provider outside production', () => {
    const deploys = (fns: Array<[string, unknown]>) => fns.filter(([id]) => id.startsWith('CustomCDKBucketDeployment'));
    const productionFunctions = ofType(production(), 'AWS::Lambda::Function');
    expect(productionFunctions).toHaveLength(FUNCTIONS.length + 1);
    expect(deploys(productionFunctions)).toHaveLength(1);
    const devFunctions = ofType(dev(), 'AWS::Lambda::Function');
    expect(devFunctions).toHaveLength(FUNCTIONS.length + 2);
    expect(deploys(devFunctions)).toHaveLength(1);
    expect(devFunctions.filter(([id]) => id.startsWith('CustomS3AutoDeleteObjects'))).toHaveLength(1);
  });

  it('runs every function on Node 22 arm64 with the manifest memory and timeout', () => {
    const s = dev();
    for (const spec of FUNCTIONS) {
      const props = s.resources[functionId(s, spec.name)].Properties;
      expect(props).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: spec.memoryMb,
        Timeout: spec.timeoutSeconds,
        Handler: 'index.handler',
      });
    }
  });

  it('keeps one table with pk/sk strings, on demand, a NEW_AND_OLD_IMAGES stream and TTL on ttl', () => {
    const tables = ofType(dev(), 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    expect(tables[0][1].Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });

  it('turns point-in-time recovery and retention on in production only', () => {
    const [[, prodTable]] = ofType(production(), 'AWS::DynamoDB::Table');
    const [[, devTable]] = ofType(dev(), 'AWS::DynamoDB::Table');
    expect(prodTable.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(devTable.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: false });
    expect(prodTable.DeletionPolicy).toBe('Retain');
    expect(devTable.DeletionPolicy).toBe('Delete');
  });

  it('feeds the table stream to the stream consumer from LATEST, bisecting failed batches', () => {
    const s = dev();
    const [[tableId]] = ofType(s, 'AWS::DynamoDB::Table');
    const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => mentions(m.Properties.EventSourceArn, tableId));
    expect(mappings).toHaveLength(1);
    expect(mappings[0][1].Properties).toMatchObject({
      FunctionName: { Ref: functionId(s, STREAM_CONSUMER.function) },
      StartingPosition: 'LATEST',
      BatchSize: STREAM_CONSUMER.batchSize,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mappings[0][1].Properties.MaximumRetryAttempts).toBeGreaterThan(0);
  });

  it('filters the stream to the records the fan-out reads: at most 5 patterns, all on keys, none admitting rate counters or market pages', () => {
    const s = dev();
    const [[tableId]] = ofType(s, 'AWS::DynamoDB::Table');
    const [[, mapping]] = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => mentions(m.Properties.EventSourceArn, tableId));
    const filters = (mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((f) => JSON.parse(f.Pattern));
    expect(filters.length).toBeGreaterThan(0);
    expect(filters.length).toBeLessThanOrEqual(5);
    for (const f of filters) expect(Object.keys(f)).toEqual(['dynamodb']);
    const text = JSON.stringify(filters);
    expect(text).toContain('"LIVEC#"');
    expect(text).toContain('"MKT#forever.normal.alliance.us#seq"');
    expect(text).not.toContain('RATE#');
    expect(text).not.toMatch(/"prefix":"MKT#"/);
  });

  it('has the 7 queues of docs/failure-model.md with literal settings, each with its own dead-letter queue of the same kind', () => {
    // Written out rather than taken from lib/topology.ts, so a manifest change cannot move both sides.
    const encrypted = { SqsManagedSseEnabled: true };
    const fifo = { FifoQueue: true, ContentBasedDeduplication: false };
    const mergeQueue = (market: string) => ({
      id: `MergeQueuesmerge${market}Queue`,
      properties: { ...fifo, ...encrypted, MessageRetentionPeriod: FOURTEEN_DAYS, VisibilityTimeout: 720 },
      maxReceiveCount: 100,
      deadLetters: { id: `MergeQueuesmerge${market}DeadLetters`, properties: { ...fifo, ...encrypted, MessageRetentionPeriod: FOURTEEN_DAYS } },
    });
    const expected = [
      ...['normalalliance', 'normalhorde', 'pvpalliance', 'pvphorde', 'rpalliance', 'rphorde'].map(mergeQueue),
      // Standard (per-message delays), SQS's default retention of 4 days, dead letters after 3 receives.
      {
        id: 'PushQueue',
        properties: { ...encrypted, VisibilityTimeout: 360 },
        maxReceiveCount: 3,
        deadLetters: { id: 'PushQueueDeadLetters', properties: { ...encrypted, MessageRetentionPeriod: FOURTEEN_DAYS } },
      },
    ];
    const s = dev();
    const queues = ofType(s, 'AWS::SQS::Queue');
    const withoutHash = (id: string) => id.replace(/[0-9A-F]{8}$/, '');
    const actual = queues
      .filter(([, q]) => q.Properties.RedrivePolicy)
      .map(([id, q]) => {
        const { RedrivePolicy, ...properties } = q.Properties as {
          RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [string, 'Arn'] }; maxReceiveCount: number };
        };
        const dlqId = RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
        return {
          id: withoutHash(id),
          properties,
          maxReceiveCount: RedrivePolicy.maxReceiveCount,
          deadLetters: { id: withoutHash(dlqId), properties: s.resources[dlqId].Properties },
        };
      })
      .sort((a, b) => a.id.localeCompare(b.id));
    expect(actual).toEqual(expected.sort((a, b) => a.id.localeCompare(b.id)));
    // 7 queues, 7 dead-letter queues, the rejected queue, a failed-runs queue per schedule and the stream's
    // on-failure queue (issue 26 point 3): nothing else.
    expect(queues).toHaveLength(15 + SCHEDULES.length + 1);
  });

  it('keeps accepted books 14 days in the merge queues, dead-letters them only as a last resort, and backs off within 15 minutes', () => {
    const s = dev();
    const merge = ofType(s, 'AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy && q.Properties.FifoQueue);
    expect(merge).toHaveLength(MERGE_QUEUES.length);
    for (const [, q] of merge) {
      expect(q.Properties.MessageRetentionPeriod).toBe(FOURTEEN_DAYS);
      // A dependency outage at the backoff cap takes about a day to use up the receives.
      expect((q.Properties.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount).toBeGreaterThanOrEqual(90);
    }
    expect(MERGE_BACKOFF_CAP_SECONDS).toBe(900);
    expect(mergeRetryDelaySeconds(1)).toBe(0);
    for (let r = 2; r < 12; r++) expect(mergeRetryDelaySeconds(r + 1)).toBeGreaterThanOrEqual(mergeRetryDelaySeconds(r));
    expect(mergeRetryDelaySeconds(100)).toBe(MERGE_BACKOFF_CAP_SECONDS);
  });

  it('sets rejected merges aside in one FIFO queue of 14 days that nothing consumes', () => {
    const s = dev();
    const loose = ofType(s, 'AWS::SQS::Queue').filter(([id, q]) => !q.Properties.RedrivePolicy && id.includes('Rejected'));
    expect(loose).toHaveLength(1);
    const [[rejectedId, rejected]] = loose;
    expect(rejected.Properties).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false, MessageRetentionPeriod: FOURTEEN_DAYS });
    expect(ofType(s, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => mentions(m.Properties.EventSourceArn, rejectedId))).toEqual([]);
    // Nothing names it as a dead-letter target either: no SQS move ever lands there.
    expect(ofType(s, 'AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy && mentions(q.Properties.RedrivePolicy, rejectedId))).toEqual([]);
  });

  it('delivers every queue to its consumer in manifest batches with partial batch failures', () => {
    const s = dev();
    const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping');
    const main = ofType(s, 'AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy);
    for (const [queueId, queue] of main) {
      const spec = queue.Properties.FifoQueue ? MERGE_QUEUES[0] : PUSH_QUEUE;
      const mine = mappings.filter(([, m]) => mentions(m.Properties.EventSourceArn, queueId));
      expect(mine, queueId).toHaveLength(1);
      expect(mine[0][1].Properties).toMatchObject({
        FunctionName: { Ref: functionId(s, spec.consumer) },
        BatchSize: spec.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(queue.Properties.VisibilityTimeout).toBe(spec.visibilityTimeoutSeconds);
    }
  });

  it('routes every HTTP_ROUTES entry to its function and everything else to the fallback', () => {
    const s = dev();
    const [[httpApiId]] = ofType(s, 'AWS::ApiGatewayV2::Api').filter(([, a]) => a.Properties.ProtocolType === 'HTTP');
    const routes = ofType(s, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, httpApiId));
    expect(routes).toHaveLength(HTTP_ROUTES.length + 1);
    const byKey = new Map(routes.map(([, r]) => [r.Properties.RouteKey as string, r]));
    for (const route of HTTP_ROUTES) {
      const found = byKey.get(`${route.method} ${route.path}`);
      expect(found, `${route.method} ${route.path}`).toBeDefined();
      expect(routeFunction(s.resources, found as CfnResource)).toBe(functionId(s, route.function));
    }
    expect(routeFunction(s.resources, byKey.get('$default') as CfnResource)).toBe(functionId(s, FALLBACK_FUNCTION));
  });

  it('routes the WebSocket $connect, $default and $disconnect to their functions', () => {
    const s = dev();
    const [[wsApiId]] = ofType(s, 'AWS::ApiGatewayV2::Api').filter(([, a]) => a.Properties.ProtocolType === 'WEBSOCKET');
    const routes = ofType(s, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, wsApiId));
    expect(routes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(WS_ROUTES.map((r) => r.routeKey).sort());
    for (const spec of WS_ROUTES) {
      const [, route] = routes.find(([, r]) => r.Properties.RouteKey === spec.routeKey) as [string, CfnResource];
      const target = route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
      expect(mentions(s.resources[target['Fn::Join'][1][1].Ref].Properties.IntegrationUri, functionId(s, spec.function))).toBe(true);
    }
  });

  it('runs every schedule at its manifest rate against its function', () => {
    const s = dev();
    const rules = ofType(s, 'AWS::Events::Rule');
    expect(rules).toHaveLength(SCHEDULES.length);
    for (const spec of SCHEDULES) {
      const fnId = functionId(s, spec.function);
      const mine = rules.filter(([, r]) => mentions(r.Properties.Targets, fnId));
      expect(mine, spec.name).toHaveLength(1);
      expect(rateMinutes(mine[0][1].Properties.ScheduleExpression as string)).toBe(spec.everyMinutes);
    }
  });

  it('runs the redrive function every 5 minutes from EventBridge', () => {
    const s = dev();
    const fnId = functionId(s, 'redrive');
    const rules = ofType(s, 'AWS::Events::Rule').filter(([, r]) => mentions(r.Properties.Targets, fnId));
    expect(rules).toHaveLength(1);
    expect(rules[0][1].Properties.ScheduleExpression).toBe('rate(5 minutes)');
  });

  it('alarms on every dead-letter queue, the rejected merges, every merge queue age and HTTP 5xx', () => {
    const s = dev();
    const all = ofType(s, 'AWS::CloudWatch::Alarm');
    const alarms = all.map(([, a]) => a.Properties.MetricName);
    // Dead letters, the rejected merges, and (issue 26 point 3) each schedule's failed runs and the stream's skipped batches.
    expect(alarms.filter((m) => m === 'ApproximateNumberOfMessagesVisible')).toHaveLength(QUEUES.length + 1 + SCHEDULES.length + 1);
    const [[rejectedId]] = ofType(s, 'AWS::SQS::Queue').filter(([id]) => id.includes('Rejected'));
    const rejected = all.filter(([, a]) => mentions(a.Properties.Dimensions, rejectedId));
    expect(rejected).toHaveLength(1);
    expect(rejected[0][1].Properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(rejected[0][1].Properties.AlarmActions).toHaveLength(1);
    expect(alarms.filter((m) => m === 'ApproximateAgeOfOldestMessage')).toHaveLength(MERGE_QUEUES.length);
    expect(alarms.filter((m) => m === '5xx')).toHaveLength(1);
  });

  // Issue 23, point 10: the two contract-level risks the merge watches page the operator.
  it('alarms when a complete book blanks a market and when a credited book replays the hourly snapshot', () => {
    const alarms = ofType(dev(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    for (const name of ['merge_blanked_market', 'merge_snapshot_replay']) {
      const mine = alarms.filter((a) => a.MetricName === name);
      expect(mine, name).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        Namespace: 'MarketData',
        Dimensions: [{ Name: 'service', Value: 'merge' }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(mine[0].AlarmActions, name).toHaveLength(1);
    }
  });

  it('puts the live path behind CloudFront with a function that rewrites upgrades to the stage', () => {
    const s = dev();
    const [[, fn]] = ofType(s, 'AWS::CloudFront::Function');
    const code = fn.Properties.FunctionCode as string;
    expect(code).toContain("request.uri = '/live'");
    expect(code).toContain("cf.selectRequestOriginById('http-api')");
    const site = ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site')) as [string, CfnResource];
    const config = site[1].Properties.DistributionConfig as { CacheBehaviors: Array<{ PathPattern: string; FunctionAssociations: unknown[] }> };
    const live = config.CacheBehaviors.find((b) => b.PathPattern === '/api/v1/live');
    expect(live?.FunctionAssociations).toHaveLength(1);
  });

  it('serves files only through CloudFront with origin access control and CORS for the stage origins', () => {
    const s = production();
    const buckets = ofType(s, 'AWS::S3::Bucket');
    for (const [, b] of buckets) {
      expect(b.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
    // One per bucket CloudFront reads: the files bucket and the website's build (issue 24).
    expect(ofType(s, 'AWS::CloudFront::OriginAccessControl')).toHaveLength(2);
    const [[, policy]] = ofType(s, 'AWS::CloudFront::ResponseHeadersPolicy');
    const cors = (policy.Properties.ResponseHeadersPolicyConfig as { CorsConfig: { AccessControlAllowOrigins: { Items: unknown[] } } }).CorsConfig;
    // Production: its own origin only.
    expect(cors.AccessControlAllowOrigins.Items).toHaveLength(1);
    expect(mentions(cors.AccessControlAllowOrigins.Items[0], ofType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('Site'))?.[0] ?? '')).toBe(
      true,
    );
  });

  it('lets CloudFront read and list the files bucket (a missing key is 404) while `/` and query strings never reach S3 as a listing', () => {
    for (const s of [production(), dev()]) {
      const [[filesId]] = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('FilesBucket'));
      const policies = ofType(s, 'AWS::S3::BucketPolicy').filter(([, p]) => mentions(p.Properties.Bucket, filesId));
      const cloudfront = policies
        .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Array<{ Principal?: { Service?: string }; Action: string | string[] }> }).Statement)
        .filter((st) => st.Principal?.Service === 'cloudfront.amazonaws.com');
      expect(cloudfront.flatMap((st) => [st.Action].flat()).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
      const [[, files]] = ofType(s, 'AWS::CloudFront::Distribution').filter(([id]) => id.startsWith('FilesDistribution'));
      const config = files.Properties.DistributionConfig as { DefaultRootObject?: string; DefaultCacheBehavior: { CachePolicyId: unknown } };
      expect(config.DefaultRootObject).toBe('index.html');
      const [[cacheId, cache]] = ofType(s, 'AWS::CloudFront::CachePolicy').filter(([id]) => id.startsWith('FilesCaching'));
      expect(mentions(config.DefaultCacheBehavior.CachePolicyId, cacheId)).toBe(true);
      const params = (
        cache.Properties.CachePolicyConfig as { ParametersInCacheKeyAndForwardedToOrigin: { QueryStringsConfig: { QueryStringBehavior: string } } }
      ).ParametersInCacheKeyAndForwardedToOrigin;
      expect(params.QueryStringsConfig.QueryStringBehavior).toBe('none');
    }
  });

  it('expires spilled answers (answers/) after a day and nothing else in the files bucket (issue 13)', () => {
    for (const s of [production(), dev()]) {
      const [[, files]] = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('FilesBucket'));
      expect(files.Properties.LifecycleConfiguration).toEqual({ Rules: [{ Id: 'ExpireAnswers', Prefix: 'answers/', ExpirationInDays: 1, Status: 'Enabled' }] });
    }
  });

  it('keeps internal state in a work bucket of each stage that no distribution serves and that forgets state left alone for 14 days', () => {
    for (const s of [production(), dev(), synth('preview-abc')]) {
      const work = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('WorkBucket'));
      expect(work).toHaveLength(1);
      const [[workId, bucket]] = work;
      expect(bucket.Properties.LifecycleConfiguration).toEqual({ Rules: [{ ExpirationInDays: 14, Status: 'Enabled' }] });
      for (const [, d] of ofType(s, 'AWS::CloudFront::Distribution')) expect(mentions(d.Properties, workId)).toBe(false);
    }
  });

  it('lets dev file readers on localhost ports through CORS', () => {
    const [[, policy]] = ofType(dev(), 'AWS::CloudFront::ResponseHeadersPolicy');
    const items = (policy.Properties.ResponseHeadersPolicyConfig as { CorsConfig: { AccessControlAllowOrigins: { Items: unknown[] } } }).CorsConfig
      .AccessControlAllowOrigins.Items;
    expect(items).toEqual(expect.arrayContaining(['http://localhost', 'http://127.0.0.1', 'http://localhost:5173', 'http://127.0.0.1:1420']));
  });
});
