/**
 * The one wiring manifest: every function, its handler file, memory and timeout, every HTTP and WebSocket
 * route it serves, every queue, schedule and stream consumer. The CDK stack (lib/stack.ts) builds AWS
 * resources from it and the local runtime (lib/local/) wires the same handlers from it.
 */

import { RETENTION } from './domain/file-paths';
import { MARKETS, marketLabel } from './domain/market';
import type { PkFamily } from './domain/pk-families';

export type { PkFamily };

export type FunctionName =
  | 'api'
  | 'upload'
  | 'pages'
  | 'ws-connect'
  | 'ws-message'
  | 'ws-disconnect'
  | 'merge'
  | 'fanout'
  | 'push'
  | 'seal'
  | 'snapshot'
  | 'retention'
  | 'items'
  | 'live-sweep'
  | 'redrive';

/**
 * A right on a key prefix of the files bucket: `read` (GetObject and HeadObject, with a 404 for a missing
 * key), `write` (PutObject), `delete` (DeleteObject, batches too), `list` (ListObjectsV2 under the prefix).
 */
export type BucketRight = 'read' | 'write' | 'delete' | 'list';

/** Key prefixes of the files bucket (under the stage's `FILES_PREFIX`) and the rights a function has on each. */
export type BucketAccess = Readonly<Record<string, readonly BucketRight[]>>;

/** Queues a function sends to: `merge` is every market's merge queue, `push` the Web Push queue. */
export type QueueGroup = 'merge' | 'push';

export interface FunctionSpec {
  name: FunctionName;
  /**
   * Path of the Lambda entry from the project root; it exports `handler`, built once per cold start from the
   * composition root beside it (`handler.ts`, `createHandler(svc)` on `awsServices(name, platform)`), which the
   * local runtime calls itself.
   */
  entry: string;
  memoryMb: number;
  timeoutSeconds: number;
  /**
   * Concurrency held for this function alone, so a flood of API or socket traffic can never take the
   * account's concurrency away from it (merges and live delivery). It is also the function's ceiling.
   */
  reservedConcurrency?: number;
  /** What the function may touch; the stack grants exactly this (least privilege), the local runtime enforces it. */
  access: {
    table: 'read' | 'write' | 'none';
    /**
     * The table's ports the function's code is composed with (shared/services.ts `ServicesOf<F>` is derived
     * from this list and the rest of the access): a root cannot name a port its entry does not list.
     */
    tablePorts?: readonly TablePort[];
    /**
     * The partition key families (shared/store/keys.ts) the function reads or writes: its role may touch no
     * other item (`dynamodb:LeadingKeys`). Market pages stay writable only with `marketPages` too.
     */
    tableKeys?: readonly PkFamily[];
    /** Writes market pages (rows, candles, volume). Only the merge function does. */
    marketPages?: boolean;
    /** Nothing when absent. */
    bucket?: BucketAccess;
    /** The private work bucket of internal state (the snapshot job's folded series); never served. */
    workBucket?: 'write';
    queues?: readonly QueueGroup[];
    /**
     * Failed merges: `reject` may set a merge aside in the rejected queue (the merge function); `redrive` may
     * also receive and delete the merge queues' dead letters (the redrive function, with the `merge` group).
     */
    mergeFailures?: 'reject' | 'redrive';
    connections?: boolean;
    /**
     * `origin`: the origin-verify secret (functions behind CloudFront); `uploader`: the uploader-hash key;
     * `vapid`: the VAPID key pair (the push sender); `vapidPublic`: its public half alone (what browsers are told).
     */
    secrets?: readonly ('identity' | 'vapid' | 'vapidPublic' | 'origin' | 'uploader')[];
    /**
     * Rights that only routes answering 404 in production use (POST /admin/snapshot): the production stack
     * leaves them out of the role (`accessIn`); dev, previews and the local runtime keep them.
     */
    notInProduction?: { bucket?: BucketAccess; workBucket?: true };
  };
}

/** The ports over the table (shared/ports/*): a function's `tablePorts` names the ones its code uses. */
export type TablePort = 'market' | 'settings' | 'identity' | 'uploads' | 'catalogue' | 'connections';

// Literal types kept (`const`), so each function's access is a type `ServicesOf<F>` is derived from.
const fn = <const N extends FunctionName, const A extends FunctionSpec['access']>(
  name: N,
  memoryMb: number,
  timeoutSeconds: number,
  access: A,
  reservedConcurrency?: number,
) => ({
  name,
  entry: `lambdas/${name}/index.ts`,
  memoryMb,
  timeoutSeconds,
  ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
  access,
});

/**
 * Partition key families by the port that touches them (shared/store/keys.ts), read from each adapter and from
 * the port methods each function's code calls. Authenticating a caller: profiles and devices (`USER#`),
 * device tokens, cached API key verdicts and the request counters.
 */
const CALLERS: readonly PkFamily[] = ['user', 'deviceToken', 'apiKey', 'rate'];
/** The live sockets' records: pointers, hub counters, hub members, and each account's sockets under `USER#`. */
const SOCKETS: readonly PkFamily[] = ['conn', 'liveHubs', 'liveConn', 'user'];
/** Market data, its files' state and its capabilities (the market port without the hourly view cache). */
const MARKET: readonly PkFamily[] = ['market', 'files', 'cap'];
/** Item builds and the catalogue (its entries, reports, reporting accounts and name revision). */
const CATALOGUE: readonly PkFamily[] = ['items', 'catalogue', 'catalogueReport', 'catalogueAccount', 'catalogueMeta'];
/** Alerts, fired alerts and push endpoints (the settings port; account documents are under `USER#`). */
const SETTINGS: readonly PkFamily[] = ['user', 'alerts', 'alertFired', 'pushEndpoint'];
const keys = (...groups: Array<readonly PkFamily[] | PkFamily>): PkFamily[] => [...new Set(groups.flat())];

const R: readonly BucketRight[] = ['read'];
const W: readonly BucketRight[] = ['write'];
const RW: readonly BucketRight[] = ['read', 'write'];
const WD: readonly BucketRight[] = ['write', 'delete'];

/**
 * Merges run one batch per market at a time (FIFO groups), so six would do; the rest is headroom for a
 * redelivery racing a new batch. Live delivery runs one batch per stream shard.
 */
export const MERGE_CONCURRENCY = 10;
export const FANOUT_CONCURRENCY = 10;

const MANIFEST = [
  // Reads books (book route), snapshots (hourly reads), items and releases; writes item files when a build's
  // merged files are due and, through POST /admin/snapshot, what the snapshot job writes; writes answers too
  // big for a Lambda answer to answers/ (shared/http/answer-files.ts), the only function that may.
  // Production leaves out the snapshot writes (POST /admin/snapshot is 404 there). It tells browsers the VAPID
  // public key and never sends a push: the public half only.
  fn('api', 1024, 29, {
    table: 'write',
    tablePorts: ['settings', 'identity', 'uploads', 'catalogue', 'market'],
    tableKeys: keys(CALLERS, 'pairing', 'pairCode', MARKET, 'view', 'upload', CATALOGUE, SETTINGS),
    bucket: { 'books/': R, 'releases/': R, 'items/': RW, 'snap/': RW, 'recent/': RW, 'answers/': W },
    workBucket: 'write',
    notInProduction: { bucket: { 'snap/': W, 'recent/': W }, workBucket: true },
    secrets: ['identity', 'vapidPublic', 'origin'],
  }),
  // Stores book bodies (books/, quarantine/) and deletes them again when the admission fails afterwards.
  fn('upload', 1769, 29, {
    table: 'write',
    tablePorts: ['identity', 'uploads', 'catalogue', 'market'],
    tableKeys: keys(CALLERS, MARKET, 'upload', CATALOGUE),
    bucket: { 'books/': WD, 'quarantine/': WD },
    queues: ['merge'],
    secrets: ['identity', 'origin', 'uploader'],
  }),
  // Reads snapshots: the home page lists each market's most listed items from the newest hourly snapshot.
  fn('pages', 512, 15, {
    table: 'read',
    tablePorts: ['identity', 'catalogue', 'market'],
    tableKeys: keys(CALLERS, MARKET, 'view', CATALOGUE),
    bucket: { 'items/': R, 'icons/': R, 'snap/': R },
    secrets: ['origin'],
  }),
  fn('ws-connect', 512, 10, { table: 'write', tablePorts: ['identity', 'connections'], tableKeys: keys(CALLERS, SOCKETS), secrets: ['identity', 'origin'] }),
  fn('ws-message', 512, 10, {
    table: 'write',
    tablePorts: ['identity', 'connections'],
    tableKeys: keys(CALLERS, SOCKETS),
    connections: true,
    secrets: ['identity'],
  }),
  fn('ws-disconnect', 256, 10, { table: 'write', tablePorts: ['connections'], tableKeys: SOCKETS }),
  fn(
    'merge',
    3008,
    120,
    {
      table: 'write',
      tablePorts: ['market', 'settings', 'identity'],
      // Profiles (contributor claims), alerts it fires and the pushes it sends at once.
      tableKeys: keys(MARKET, SETTINGS),
      marketPages: true,
      bucket: { 'books/': R, 'live/': W },
      queues: ['push'],
      mergeFailures: 'reject',
      secrets: ['identity'],
    },
    MERGE_CONCURRENCY,
  ),
  fn('fanout', 1024, 60, { table: 'write', tablePorts: ['connections', 'market'], tableKeys: keys(SOCKETS, MARKET), connections: true }, FANOUT_CONCURRENCY),
  // Re-queues itself: the flush that closes an account's 30 s grouping window.
  // Subscriptions and the push window (under `USER#`) and the endpoints' owners: nothing else.
  fn('push', 512, 60, { table: 'write', tablePorts: ['settings'], tableKeys: ['user', 'pushEndpoint'], queues: ['push'], secrets: ['vapid'] }),
  fn('seal', 2048, 120, { table: 'write', tablePorts: ['market'], tableKeys: MARKET, marketPages: true, bucket: { 'candles/': W, 'volume/': W } }),
  // The folded recent-changes series (internal state) lives in the private work bucket.
  fn('snapshot', 3008, 300, {
    table: 'write',
    tablePorts: ['market', 'catalogue'],
    tableKeys: keys(MARKET, 'view', CATALOGUE),
    bucket: { 'snap/': RW, 'recent/': RW, 'items/': R },
    workBucket: 'write',
  }),
  // Lists and deletes exactly the prefixes retention ages, and quarantined bodies past their time; it reads
  // nothing (a live file's write time is its listing's LastModified).
  fn('retention', 1024, 900, {
    table: 'write',
    tablePorts: ['uploads', 'market', 'catalogue'],
    // The catalogue: the reports of accounts gone for their lifetime expire (shared/items/catalogue-expiry.ts).
    tableKeys: keys(MARKET, 'upload', CATALOGUE),
    marketPages: true,
    bucket: {
      ...Object.fromEntries(RETENTION.map((r) => [r.prefix, ['list', 'delete'] as const])),
      'quarantine/': ['delete'],
      'work/': ['list', 'delete'],
      'answers/': ['list', 'delete'],
    },
  }),
  // Reads market rows: one account's name is merged only for a key with a row in some market (issue 23).
  fn('items', 1024, 300, { table: 'write', tablePorts: ['catalogue', 'market'], tableKeys: keys(CATALOGUE, MARKET), bucket: { 'items/': RW } }),
  fn('live-sweep', 512, 60, {
    table: 'write',
    tablePorts: ['connections', 'identity'],
    tableKeys: keys(CALLERS, SOCKETS),
    connections: true,
    secrets: ['identity'],
  }),
  // Probes the table and books/ (what a merge reads) before it returns dead letters to their queues.
  fn('redrive', 256, 60, { table: 'read', tablePorts: ['market'], tableKeys: MARKET, bucket: { 'books/': R }, queues: ['merge'], mergeFailures: 'redrive' }),
] as const satisfies readonly FunctionSpec[];

export const FUNCTIONS: readonly FunctionSpec[] = MANIFEST;

/** Function `F`'s manifest access, as its literal type (what `ServicesOf<F>` in shared/services.ts reads). */
export type AccessOf<F extends FunctionName> = Extract<(typeof MANIFEST)[number], { name: F }>['access'];

/**
 * A function's access in a stage family: production leaves out the rights only its 404 routes would use
 * (`notInProduction`); every other stage, and the local runtime, has the whole manifest entry.
 */
export function accessIn(spec: FunctionSpec, env: 'production' | 'dev' | 'preview'): FunctionSpec {
  const drop = spec.access.notInProduction;
  if (env !== 'production' || !drop) return spec;
  const { notInProduction: _, ...access } = spec.access;
  const bucket = Object.fromEntries(
    Object.entries(access.bucket ?? {})
      .map(([prefix, rights]) => [prefix, rights.filter((r) => !drop.bucket?.[prefix]?.includes(r))] as const)
      .filter(([, rights]) => rights.length > 0),
  );
  return { ...spec, access: { ...access, bucket, ...(drop.workBucket ? { workBucket: undefined } : {}) } };
}

/** Whether `access` lets a function use `right` on the bucket key `key` (relative to the stage's prefix). */
export function bucketAllows(access: BucketAccess | undefined, right: BucketRight, key: string): boolean {
  return Object.entries(access ?? {}).some(([prefix, rights]) => key.startsWith(prefix) && rights.includes(right));
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway path syntax: `{name}` is one segment. */
  path: string;
  function: FunctionName;
}

// Literal types all the way down, so route keys are a type (RouteKey) each route table is checked against.
const api = <M extends HttpMethod, P extends string>(method: M, path: P) => ({ method, path: `/api/v1${path}` as const, function: 'api' as const });
const upload = <P extends string>(path: P) => ({ method: 'POST' as const, path: `/api/v1${path}` as const, function: 'upload' as const });
const page = <P extends string>(path: P) =>
  [
    { method: 'GET', path, function: 'pages' },
    { method: 'HEAD', path, function: 'pages' },
  ] as const;

/** Every HTTP route of the spec. A path outside this list is 404 `not_found`; a listed path with another method is 405. */
export const HTTP_ROUTES = [
  // Environment
  api('GET', '/config'),
  api('POST', '/admin/snapshot'),
  // Account
  api('GET', '/me'),
  api('GET', '/contributions'),
  api('POST', '/devices/pair'),
  api('POST', '/devices/confirm'),
  api('GET', '/devices/pair/{pairId}'),
  api('GET', '/devices'),
  api('DELETE', '/devices/{id}'),
  // Market reads
  api('GET', '/ah'),
  api('GET', '/ah/{market}'),
  api('GET', '/ah/{market}/snapshot'),
  api('GET', '/ah/{market}/files'),
  api('GET', '/ah/{market}/candles'),
  api('GET', '/ah/{market}/intraday'),
  api('GET', '/ah/{market}/history'),
  api('GET', '/ah/{market}/books'),
  api('GET', '/ah/{market}/books/{at}'),
  api('GET', '/ah/{market}/{item}'),
  api('GET', '/ah/{market}/{item}/candles'),
  api('GET', '/ah/{market}/{item}/book'),
  // Uploads (the retired scan route answers 404 for every method)
  upload('/ah/books'),
  api('ANY', '/ah/scans'),
  // Item data
  api('GET', '/items'),
  api('GET', '/items/search-index'),
  api('GET', '/items/unknown'),
  api('GET', '/items/{key}'),
  upload('/items/seen'),
  // Settings
  api('GET', '/market/watch'),
  api('PUT', '/market/watch'),
  api('GET', '/market/alerts'),
  api('POST', '/market/alerts'),
  api('PUT', '/market/alerts/{id}'),
  api('DELETE', '/market/alerts/{id}'),
  api('GET', '/market/boards'),
  api('PUT', '/market/boards'),
  // Web Push
  api('GET', '/push/key'),
  api('GET', '/push/subscription'),
  api('PUT', '/push/subscription'),
  api('DELETE', '/push/subscription'),
  // Updates and downloads
  api('GET', '/update/latest.json'),
  api('GET', '/downloads/desktop/latest'),
  // Live socket without an upgrade (401 / 403 / 400 / 426)
  api('GET', '/live'),
  // Pages and discovery
  ...page('/'),
  ...page('/item/{key}'),
  ...page('/item/{key}/{slug}'),
  ...page('/openapi.json'),
  ...page('/openapi.full.json'),
  ...page('/docs/api/reference'),
  ...page('/docs/api/reference.md'),
  ...page('/.well-known/api-catalog'),
  ...page('/llms.txt'),
  ...page('/llms-full.txt'),
  ...page('/sitemap.xml'),
  ...page('/AGENTS.md'),
  ...page('/icons/{icon}'),
  ...page('/icons/id/{fileId}'),
] as const satisfies readonly RouteSpec[];

type HttpRoute = (typeof HTTP_ROUTES)[number];

/**
 * The route keys (`"GET /api/v1/me"`, API Gateway's `routeKey`) the manifest gives function `F`. Each function's
 * route table `satisfies Record<RouteKey<F>, …>`, so a misspelled, missing or foreign key fails the typecheck.
 */
export type RouteKey<F extends FunctionName = FunctionName> = HttpRoute extends infer R
  ? R extends { method: infer M extends string; path: infer P extends string; function: F }
    ? `${M} ${P}`
    : never
  : never;

/** The function that answers paths no route matches (404 `not_found` / 405 `method_not_allowed`, rate limited). */
export const FALLBACK_FUNCTION = 'api' satisfies FunctionName;

export const LIVE_PATH = '/api/v1/live';

export interface WsRouteSpec {
  routeKey: '$connect' | '$default' | '$disconnect';
  function: FunctionName;
}

export const WS_ROUTES: readonly WsRouteSpec[] = [
  { routeKey: '$connect', function: 'ws-connect' },
  { routeKey: '$default', function: 'ws-message' },
  { routeKey: '$disconnect', function: 'ws-disconnect' },
];

export interface QueueSpec {
  /** Logical name; the queue's URL reaches functions through config under this name. */
  name: string;
  fifo: boolean;
  consumer: FunctionName;
  batchSize: number;
  /** Receives before SQS moves a message to the queue's dead-letter queue. */
  maxReceives: number;
  visibilityTimeoutSeconds: number;
  /** How long a message may wait (SQS's default, 4 days, when absent). */
  retentionDays?: number;
  market?: string;
  /**
   * The most consumer invocations the queue's event source runs at once (SQS's `maximumConcurrency`, 2..1000);
   * absent: as many as Lambda allows (a FIFO queue of one market runs one batch at a time anyway).
   */
  maxConcurrency?: number;
}

/** The SQS maximum: an accepted book waits this long for its merge, whatever the outage. */
export const MERGE_RETENTION_DAYS = 14;

/**
 * One FIFO merge queue per market (MessageGroupId = market) so each market merges one batch at a time.
 * The merge handler backs failed books off itself (shared/domain/merge-retry.ts) and sets aside books that
 * fail for their own data; SQS's move to the dead-letter queue is only the last resort against a merge that
 * dies without answering (timeouts, crashes): 100 receives, about a day of an outage at the backoff cap.
 */
export const MERGE_QUEUES: readonly QueueSpec[] = MARKETS.map((market) => ({
  name: `merge-${marketLabel(market)}`,
  fifo: true,
  consumer: 'merge' as const,
  batchSize: 10,
  maxReceives: 100,
  visibilityTimeoutSeconds: 720,
  retentionDays: MERGE_RETENTION_DAYS,
  market,
}));

/** The dead-letter queue of a manifest queue, by name (SQS moves messages there after `maxReceives`). */
export const deadLetterQueueName = (queue: string): string => `${queue}-dead-letters`;

/**
 * Where a scheduled run that failed lands, one queue per schedule (issue 26 point 3): in AWS the EventBridge
 * target's dead letters (an invocation it could not make) and the function's on-failure destination (a run
 * that threw), the local scheduler's failed runs locally. Nothing consumes it; an alarm fires while it holds one.
 */
export const failedRunsQueueName = (schedule: string): string => `${schedule}-failed-runs`;

/** Failed runs wait as long as dead letters (SQS's maximum), so a weekend's failures are still there on Monday. */
export const FAILED_RUNS_RETENTION_DAYS = 14;

/**
 * Where the table stream's consumer records a batch it gave up on (retries exhausted or records too old):
 * the shard and sequence numbers of the skipped records, for an operator to read them again.
 */
export const STREAM_FAILED_QUEUE = { name: 'fanout-stream-failed', fifo: false, retentionDays: FAILED_RUNS_RETENTION_DAYS } as const;

/**
 * Where merges that failed for their own data wait for an operator (FIFO, group = market): no consumer,
 * never redriven, alarmed on.
 */
export const MERGE_REJECTED_QUEUE = { name: 'merge-rejected', fifo: true, retentionDays: MERGE_RETENTION_DAYS } as const;

/**
 * Web Push deliveries; a standard queue because grouping needs per-message delays. A standard queue's
 * consumer scales with its backlog, so a burst of alerts would take the account's (shared, unreserved)
 * concurrency from the API: five deliveries at once at most, the backlog waits its turn.
 */
export const PUSH_QUEUE: QueueSpec = {
  name: 'push',
  fifo: false,
  consumer: 'push',
  batchSize: 10,
  maxReceives: 3,
  visibilityTimeoutSeconds: 360,
  maxConcurrency: 5,
};

export const QUEUES: readonly QueueSpec[] = [...MERGE_QUEUES, PUSH_QUEUE];

export const mergeQueueName = (market: string): string => `merge-${marketLabel(market)}`;

export interface ScheduleSpec {
  name: string;
  function: FunctionName;
  /** Period in minutes; EventBridge `rate(...)` in AWS, the scheduler on the service clock locally. */
  everyMinutes: number;
}

export const SCHEDULES: readonly ScheduleSpec[] = [
  { name: 'seal', function: 'seal', everyMinutes: 1 },
  { name: 'live-sweep', function: 'live-sweep', everyMinutes: 1 },
  { name: 'snapshot', function: 'snapshot', everyMinutes: 60 },
  { name: 'items', function: 'items', everyMinutes: 10 },
  { name: 'retention', function: 'retention', everyMinutes: 360 },
  { name: 'redrive', function: 'redrive', everyMinutes: 5 },
];

/**
 * The table stream's one consumer (live fan-out: hello, ah, sealed, alert, roles) and its batch size. The
 * filters that keep every other write from invoking it belong to the stream's adapter
 * (shared/store/change-stream.ts `CHANGE_STREAM_FILTERS`), beside the decoder of what they let through.
 */
export const STREAM_CONSUMER: { function: FunctionName; batchSize: number } = {
  function: 'fanout',
  batchSize: 100,
};

export const functionSpec = (name: FunctionName): FunctionSpec => {
  const spec = FUNCTIONS.find((f) => f.name === name);
  if (!spec) throw new Error(`unknown function ${name}`);
  return spec;
};
