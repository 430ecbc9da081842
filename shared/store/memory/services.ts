/**
 * Every port over the in-memory fakes (each held to its adapter by test/contract/<port>.contract.test.ts), on
 * one service clock and one change feed (shared/store/memory/change-feed.ts): what the handlers run on with no engine (`createHandler(servicesFor(fn, memoryServices(clock)))`,
 * shared/platform/granted.ts picks each function's ports from it as `awsServices` builds them for AWS).
 */
import type { Clock } from '../../clock';
import { type Config, parseConfig } from '../../config';
import { jsonLog, type Log } from '../../log';
import type { Services } from '../../services';
import { MemoryCatalogue } from './catalogue';
import { MemoryChangeFeed } from './change-feed';
import { MemoryConnections, MemorySockets } from './connections';
import { MemoryFiles } from './files';
import { MemoryIdentity } from './identity';
import { memoryMarket } from './market';
import { MemoryQueues } from './queues';
import { MemorySecrets } from './secrets';
import { MemorySettings } from './settings';
import { MemoryUploads } from './uploads';

/** The fakes by their own types, so a caller can drive what the service does not (a socket opening, a queue's messages). */
export type MemoryServices = Services & {
  connections: MemoryConnections;
  sockets: MemorySockets;
  queues: MemoryQueues;
  files: MemoryFiles;
  work: MemoryFiles;
  settings: MemorySettings;
  identity: MemoryIdentity;
  uploads: MemoryUploads;
  catalogue: MemoryCatalogue;
  secrets: MemorySecrets;
  /** The change feed the fakes publish their writes to (what the table's stream carries in AWS); no root's port. */
  changes: MemoryChangeFeed;
};

/**
 * A configuration for the fakes: a dev stage whose names are never used (no table, bucket or queue behind them),
 * `overrides` as the environment's variables (the identity provider's URLs, secrets, origins).
 */
export function memoryConfig(overrides: Record<string, string> = {}): Config {
  return parseConfig({
    STAGE: 'memory',
    TABLE_NAME: 'memory',
    BUCKET_NAME: 'memory-files',
    WORK_BUCKET_NAME: 'memory-work',
    PUBLIC_BASE: 'http://127.0.0.1/',
    CDN_BASE: 'http://127.0.0.1/files/',
    IDP_ISSUER: 'http://127.0.0.1/_local/idp',
    IDP_JWKS_URL: 'http://127.0.0.1/_local/idp/.well-known/jwks.json',
    IDP_API_URL: 'http://127.0.0.1/_local/idp',
    CONNECTIONS_ENDPOINT: 'http://127.0.0.1/',
    ...overrides,
  });
}

/**
 * Every port as a fake, on `clock`; the configuration and log given or a memory stage's and the JSON lines, and
 * the change feed given (the local runtime's, with the stream consumer's batch size) or a new one.
 */
export function memoryServices(clock: Clock, config: Config = memoryConfig(), log: Log = jsonLog, changes = new MemoryChangeFeed()): MemoryServices {
  return {
    config,
    clock,
    log,
    market: memoryMarket(clock, undefined, changes),
    settings: new MemorySettings(changes),
    identity: new MemoryIdentity(changes),
    uploads: new MemoryUploads(),
    catalogue: new MemoryCatalogue(),
    connections: new MemoryConnections(undefined, changes),
    sockets: new MemorySockets(),
    queues: new MemoryQueues(clock),
    files: new MemoryFiles(clock),
    work: new MemoryFiles(clock),
    secrets: new MemorySecrets(),
    changes,
  };
}
