/**
 * The one wiring manifest: every function, its handler file, memory and timeout, every HTTP and WebSocket
 * route it serves, every queue, schedule and stream consumer. The CDK stack (lib/stack.ts) builds AWS
 * resources from it and the local runtime (lib/local/) wires the same handlers from it.
 */
import { MARKETS, marketLabel } from '../shared/domain/market';

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
  | 'live-sweep';

export interface FunctionSpec {
  name: FunctionName;
  /** Path of the handler module from the project root; it exports `handler`. */
  entry: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** What the function may touch; the stack grants exactly this (least privilege). */
  access: {
    table: 'read' | 'write' | 'none';
    /** Writes market pages (rows, candles, volume). Only the merge function does. */
    marketPages?: boolean;
    bucket: 'read' | 'write' | 'none';
    /** The private work bucket of internal state (the snapshot job's folded series); never served. */
    workBucket?: 'write';
    queues?: 'send-merge' | 'send-push' | 'send-all';
    connections?: boolean;
    secrets?: Array<'identity' | 'vapid'>;
  };
}

const fn = (name: FunctionName, memoryMb: number, timeoutSeconds: number, access: FunctionSpec['access']): FunctionSpec => ({
  name,
  entry: `lambdas/${name}/handler.ts`,
  memoryMb,
  timeoutSeconds,
  access,
});

export const FUNCTIONS: readonly FunctionSpec[] = [
  // The admin snapshot route writes the snapshot files as the schedule does, folded series included.
  fn('api', 1024, 29, { table: 'write', bucket: 'write', workBucket: 'write', queues: 'send-all', connections: true, secrets: ['identity', 'vapid'] }),
  fn('upload', 1769, 29, { table: 'write', bucket: 'write', queues: 'send-merge', secrets: ['identity'] }),
  fn('pages', 512, 15, { table: 'read', bucket: 'read' }),
  fn('ws-connect', 512, 10, { table: 'write', bucket: 'none', secrets: ['identity'] }),
  fn('ws-message', 512, 10, { table: 'write', bucket: 'none', connections: true, secrets: ['identity'] }),
  fn('ws-disconnect', 256, 10, { table: 'write', bucket: 'none' }),
  fn('merge', 3008, 120, { table: 'write', marketPages: true, bucket: 'write', queues: 'send-push', secrets: ['identity'] }),
  fn('fanout', 1024, 60, { table: 'write', bucket: 'read', connections: true }),
  fn('push', 512, 60, { table: 'write', bucket: 'none', secrets: ['vapid'] }),
  fn('seal', 2048, 120, { table: 'write', marketPages: true, bucket: 'write' }),
  fn('snapshot', 3008, 300, { table: 'write', bucket: 'write', workBucket: 'write' }),
  fn('retention', 1024, 900, { table: 'write', marketPages: true, bucket: 'write' }),
  fn('items', 1024, 300, { table: 'write', bucket: 'write' }),
  fn('live-sweep', 512, 60, { table: 'write', bucket: 'none', connections: true, secrets: ['identity'] }),
];

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway path syntax: `{name}` is one segment. */
  path: string;
  function: FunctionName;
}

const api = (method: HttpMethod, path: string): RouteSpec => ({ method, path: `/api/v1${path}`, function: 'api' });
const page = (path: string): RouteSpec[] => [
  { method: 'GET', path, function: 'pages' },
  { method: 'HEAD', path, function: 'pages' },
];

/** Every HTTP route of the spec. A path outside this list is 404 `not_found`; a listed path with another method is 405. */
export const HTTP_ROUTES: readonly RouteSpec[] = [
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
  { method: 'POST', path: '/api/v1/ah/books', function: 'upload' },
  api('ANY', '/ah/scans'),
  // Item data
  api('GET', '/items'),
  api('GET', '/items/search-index'),
  api('GET', '/items/unknown'),
  api('GET', '/items/{key}'),
  { method: 'POST', path: '/api/v1/items/seen', function: 'upload' },
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
  ...page('/docs/api/reference'),
  ...page('/docs/api/reference.md'),
  ...page('/.well-known/api-catalog'),
  ...page('/llms.txt'),
  ...page('/llms-full.txt'),
  ...page('/sitemap.xml'),
  ...page('/AGENTS.md'),
  ...page('/icons/{icon}'),
  ...page('/icons/id/{fileId}'),
];

/** The function that answers paths no route matches (404 `not_found` / 405 `method_not_allowed`, rate limited). */
export const FALLBACK_FUNCTION: FunctionName = 'api';

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
  /** Receives before a message moves to the dead-letter queue. */
  maxReceives: number;
  visibilityTimeoutSeconds: number;
  market?: string;
}

/** One FIFO merge queue per market (MessageGroupId = market) so each market merges one batch at a time. */
export const MERGE_QUEUES: readonly QueueSpec[] = MARKETS.map((market) => ({
  name: `merge-${marketLabel(market)}`,
  fifo: true,
  consumer: 'merge' as const,
  batchSize: 10,
  maxReceives: 3,
  visibilityTimeoutSeconds: 720,
  market,
}));

/** Web Push deliveries; a standard queue because grouping needs per-message delays. */
export const PUSH_QUEUE: QueueSpec = {
  name: 'push',
  fifo: false,
  consumer: 'push',
  batchSize: 10,
  maxReceives: 3,
  visibilityTimeoutSeconds: 360,
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
];

/** The table stream's one consumer: live fan-out (ah, sealed, alert, roles, hello). */
export const STREAM_CONSUMER: { function: FunctionName; batchSize: number } = { function: 'fanout', batchSize: 100 };

export const functionSpec = (name: FunctionName): FunctionSpec => {
  const spec = FUNCTIONS.find((f) => f.name === name);
  if (!spec) throw new Error(`unknown function ${name}`);
  return spec;
};
