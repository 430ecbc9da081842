/**
 * The real adapters of a function's ports, built from its platform by its manifest access: the one place that
 * says which adapter serves which port, used by every Lambda entry (`lambdas/<fn>/index.ts`) and by the local
 * runtime's engine mode (lib/local/lambda.ts, and every port for its operator, lib/local/operator.ts). The
 * table's adapters are the only ones imported here; the buckets, `@connections`, queues and secrets come built
 * from the platform's own factories, so a function's bundle holds an S3 or `@connections` adapter only when its
 * entry names that client (test/unit/function-bundles.test.ts).
 */
import type { PortName, Services, ServicesOf } from '../services';
import { dynamoCatalogue } from '../store/dynamo-catalogue';
import { DynamoConnections } from '../store/dynamo-connections';
import { dynamoIdentity } from '../store/dynamo-identity';
import { dynamoMarket } from '../store/dynamo-market';
import { dynamoSettings } from '../store/dynamo-settings';
import { dynamoUploads } from '../store/dynamo-uploads';
import type { Table } from '../store/table';
import { type FunctionName, functionSpec } from '../topology';
import { type CLIENT_OF, grantedPorts } from './granted';
import { type ClientName, coreOf, type Platform } from './platform';
import { tableOf } from './table';

/** The platform clients function `F`'s ports are built over (its entry may name more, e.g. `secrets` for the cold start). */
export type ClientsOf<F extends FunctionName> = (typeof CLIENT_OF)[ServicesPorts<F>];
type ServicesPorts<F extends FunctionName> = Extract<keyof ServicesOf<F>, PortName>;

type Builders = { readonly [P in PortName]: (p: Platform<ClientName>, table: () => Table) => Services[P] };

const BUILD: Builders = {
  market: (_p, t) => dynamoMarket(t()),
  settings: (_p, t) => dynamoSettings(t()),
  identity: (_p, t) => dynamoIdentity(t()),
  uploads: (_p, t) => dynamoUploads(t()),
  catalogue: (_p, t) => dynamoCatalogue(t()),
  connections: (_p, t) => new DynamoConnections(t()),
  files: (p) => p.buckets().files,
  work: (p) => p.buckets().work,
  queues: (p) => p.queues(),
  sockets: (p) => p.sockets(),
  secrets: (p) => p.secrets(),
};

/** The core and the named ports over one platform (one table object shared by the table's adapters). */
export function portsOver<P extends PortName>(ports: readonly P[], platform: Platform<ClientName>): Pick<Services, 'config' | 'clock' | 'log' | P> {
  let table: Table | undefined;
  const tableOnce = () => {
    table ??= tableOf(platform);
    return table;
  };
  const built = Object.fromEntries(ports.map((p) => [p, BUILD[p](platform, tableOnce)]));
  return { ...coreOf(platform), ...built } as Pick<Services, 'config' | 'clock' | 'log' | P>;
}

/** Function `fn`'s services: the core and exactly the ports its manifest access grants, over the real adapters. */
export function awsServices<F extends FunctionName>(fn: F, platform: Platform<ClientsOf<F>>): ServicesOf<F> {
  const ports = grantedPorts(functionSpec(fn).access);
  // Only the getters of the clients these ports name are called: the platform need hold no other.
  return portsOver(ports, platform as unknown as Platform<ClientName>) as unknown as ServicesOf<F>;
}
