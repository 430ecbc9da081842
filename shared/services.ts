/**
 * The ports a handler's code takes, by name. No function gets all of them: each composition root
 * (`lambdas/<fn>/handler.ts`) takes the ones its manifest access names (`ServicesOf<F>`), and code under
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
import type { AccessOf, FunctionName } from './topology';

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

/** What every function has besides its ports: configuration, clock, log. */
export type Core = 'config' | 'clock' | 'log';

/** The ports (everything of `Services` but the core), each granted by one part of a manifest access. */
export type PortName = Exclude<keyof Services, Core>;

/**
 * The ports a manifest access grants (shared/topology.ts): each of `tablePorts`, `files` for a bucket, `work`
 * for the work bucket, `queues` for queues, `sockets` for `connections`, `secrets` for the origin secret
 * (the one secret re-read after the cold start, shared/http/edge.ts). shared/platform/granted.ts says the same
 * at run time; test/unit/services-of.test.ts holds the two together.
 */
export type GrantedPorts<A> =
  | (A extends { tablePorts: readonly (infer P)[] } ? P & PortName : never)
  | (A extends { bucket: object } ? 'files' : never)
  | (A extends { workBucket: 'write' } ? 'work' : never)
  | (A extends { queues: readonly unknown[] } ? 'queues' : never)
  | (A extends { connections: true } ? 'sockets' : never)
  | (A extends { secrets: readonly (infer S)[] } ? ('origin' extends S ? 'secrets' : never) : never);

/**
 * The services function `F`'s composition root (`lambdas/<fn>/handler.ts`, `createHandler(svc)`) takes: the
 * core and exactly the ports its manifest access grants, so a root cannot even name another port.
 */
export type ServicesOf<F extends FunctionName> = FunctionServices[F];

/** `ServicesOf` of every function, by name (an indexed type, so code generic over a few functions typechecks). */
export type FunctionServices = { [F in FunctionName]: Pick<Services, Core | GrantedPorts<AccessOf<F>>> };
