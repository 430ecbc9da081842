/**
 * The ports a handler's code takes, by name. No function gets all of them: each composition root
 * (`lambdas/<fn>/handler.ts`) builds the ones its manifest access names (`ServicesOf<F>`), and code under
 * shared/ asks for the few it uses (`Pick<Services, 'market' | 'clock'>`), so the typecheck proves a function
 * never needs a client it does not load. Types only: this module imports no adapter.
 */
import type { Clock } from './clock';
import type { Config } from './config';
import type { Log } from './log';
import type { CataloguePort } from './ports/catalogue';
import type { ConnectionsPort, SocketsPort } from './ports/connections';
import type { FilesPort } from './ports/files';
import type { IdentityPort } from './ports/identity';
import type { MarketPort } from './ports/market';
import type { QueuePort } from './ports/queues';
import type { SecretsPort } from './ports/secrets';
import type { SettingsPort } from './ports/settings';
import type { UploadsPort } from './ports/uploads';
import type { FunctionName } from './topology';

export interface Services {
  config: Config;
  clock: Clock;
  /** The live sockets' records. */
  connections: ConnectionsPort;
  /** `@connections`: posting to sockets and closing them. */
  sockets: SocketsPort;
  queues: QueuePort;
  settings: SettingsPort;
  identity: IdentityPort;
  uploads: UploadsPort;
  catalogue: CataloguePort;
  market: MarketPort;
  /** The files bucket, under the stage's prefix. */
  files: FilesPort;
  /** The private work bucket (functions whose manifest entry names it). */
  work: FilesPort;
  /** The stage's secrets (the origin-verify secret's re-reads). */
  secrets: SecretsPort;
  /** Writes a log line; the lines never carry a secret (shared/log.ts). */
  log: Log;
}

type Core = 'config' | 'clock' | 'log';

/**
 * The ports each function's composition root builds, from its manifest access (shared/topology.ts): the table
 * ports for `table`, `files`/`work` for the buckets, `sockets` for `connections`, `queues`, `secrets`.
 */
export interface FunctionServices {
  api: Pick<Services, Core | 'secrets' | 'settings' | 'identity' | 'uploads' | 'catalogue' | 'market' | 'files' | 'work'>;
  upload: Pick<Services, Core | 'secrets' | 'identity' | 'uploads' | 'catalogue' | 'market' | 'files' | 'queues'>;
  pages: Pick<Services, Core | 'secrets' | 'identity' | 'catalogue' | 'market' | 'files'>;
  'ws-connect': Pick<Services, Core | 'secrets' | 'identity' | 'connections'>;
  'ws-message': Pick<Services, Core | 'identity' | 'connections' | 'sockets'>;
  'ws-disconnect': Pick<Services, 'connections'>;
  merge: Pick<Services, Core | 'queues' | 'settings' | 'identity' | 'market' | 'files'>;
  fanout: Pick<Services, Core | 'connections' | 'sockets' | 'market'>;
  push: Pick<Services, Core | 'queues' | 'settings'>;
  seal: Pick<Services, Core | 'market' | 'files'>;
  snapshot: Pick<Services, Core | 'catalogue' | 'market' | 'files' | 'work'>;
  retention: Pick<Services, Core | 'uploads' | 'market' | 'catalogue' | 'files'>;
  items: Pick<Services, Core | 'catalogue' | 'market' | 'files'>;
  'live-sweep': Pick<Services, Core | 'connections' | 'sockets' | 'identity'>;
  redrive: Pick<Services, Core | 'queues' | 'market' | 'files'>;
}

export type ServicesOf<F extends FunctionName> = FunctionServices[F];
