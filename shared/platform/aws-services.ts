/**
 * The real adapters of a function's ports, built from its platform by its manifest access: the one place that
 * says which adapter serves which port, used by every Lambda entry (`lambdas/<fn>/index.ts`) and by the local
 * runtime's engine mode (lib/local/functions/lambda.ts, and every port for its operator, lib/local/functions/operator.ts). No
 * adapter is imported here: the table's adapters are named by the entry (`tables`, exactly its manifest's
 * `tablePorts`, shared/platform/table-adapters.ts), and the buckets, `@connections`, queues and secrets come
 * built from the platform's own factories, so a function's bundle holds only the adapters its ports use
 * (test/unit/function-bundles.test.ts): ws-disconnect's bundle does not carry the market store.
 */
import type { PortName, Services, ServicesOf } from '../services';
import type { Table } from '../store/table';
import { type FunctionName, functionSpec, type TablePort } from '../topology';
import { type CLIENT_OF, grantedPorts } from './granted';
import { type ClientName, coreOf, type Platform } from './platform';
import { tableOf } from './table';

/** The platform clients function `F`'s ports are built over (its entry may name more, e.g. `secrets` for the cold start). */
export type ClientsOf<F extends FunctionName> = (typeof CLIENT_OF)[ServicesPorts<F>];
type ServicesPorts<F extends FunctionName> = Extract<keyof ServicesOf<F>, PortName>;

/** A table port's adapter over the table, as an entry names it (shared/platform/table-adapters.ts). */
export type TableAdapters = { readonly [P in TablePort]: (table: Table) => Services[P] };
/** The table adapters function `F`'s ports need: exactly its manifest's `tablePorts`. */
export type TableAdaptersOf<F extends FunctionName> = Pick<TableAdapters, Extract<ServicesPorts<F>, TablePort>>;

type Builders = { readonly [P in Exclude<PortName, TablePort>]: (p: Platform<ClientName>) => Services[P] };

const BUILD: Builders = {
  files: (p) => p.buckets().files,
  work: (p) => p.buckets().work,
  queues: (p) => p.queues(),
  sockets: (p) => p.sockets(),
  secrets: (p) => p.secrets(),
};

/** The core and the named ports over one platform (one table object shared by the table's adapters). */
export function portsOver<P extends PortName>(
  ports: readonly P[],
  platform: Platform<ClientName>,
  tables: Partial<TableAdapters>,
): Pick<Services, 'config' | 'clock' | 'log' | P> {
  let table: Table | undefined;
  const tableOnce = () => {
    table ??= tableOf(platform);
    return table;
  };
  const build = (p: PortName): unknown => {
    if (p in BUILD) return BUILD[p as keyof Builders](platform);
    const adapter = tables[p as TablePort];
    if (!adapter) throw new Error(`no table adapter for the ${p} port: the entry must name every port of its manifest's tablePorts`);
    return adapter(tableOnce());
  };
  const built = Object.fromEntries(ports.map((p) => [p, build(p)]));
  return { ...coreOf(platform), ...built } as Pick<Services, 'config' | 'clock' | 'log' | P>;
}

/** Function `fn`'s services: the core and exactly the ports its manifest access grants, over the real adapters. */
export function awsServices<F extends FunctionName>(fn: F, platform: Platform<ClientsOf<F>>, tables: TableAdaptersOf<F>): ServicesOf<F> {
  const ports = grantedPorts(functionSpec(fn).access);
  // Only the getters of the clients these ports name are called: the platform need hold no other.
  return portsOver(ports, platform as unknown as Platform<ClientName>, tables as Partial<TableAdapters>) as unknown as ServicesOf<F>;
}
