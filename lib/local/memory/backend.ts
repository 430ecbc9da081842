/**
 * The memory back end (`npm start -- --memory`, `RuntimeOptions.backend: 'memory'`): the whole service on the
 * in-memory fakes, with no engine, no local AWS edge and no Java. One set of fakes (shared/store/memory/
 * services.ts) stands for the table and the buckets; each function's root is built on its manifest's ports of
 * it (`servicesFor`, as `awsServices` builds them over the engines) with its own configuration, the one the
 * engines' mode parses. What is the runtime's in both modes stays so: the queues (in-process, with the queue
 * grants and the merge crash), `@connections` reaching the live gateway (here without HTTP), the file host
 * (over the memory files port), the change feed in place of the stream poller. The `table` and `storage`
 * faults are port decorators (lib/local/control/faults.ts) around the fakes. Units, IAM and SDK faults are
 * the engines' alone (docs/local-runtime.md "The memory mode").
 */
import type { Clock } from '../../../shared/clock';
import type { Log } from '../../../shared/log';
import { servicesFor } from '../../../shared/platform/granted';
import type { SocketsPort } from '../../../shared/ports/connections';
import type { Services, ServicesOf } from '../../../shared/services';
import { memoryServices } from '../../../shared/store/memory/services';
import { FUNCTIONS, type FunctionName, functionSpec } from '../../../shared/topology';
import type { ChangeParts } from '../background/background';
import type { LocalQueues } from '../background/queues';
import { type Faults, withFaults } from '../control/faults';
import type { MergeCrash } from '../control/merge-crash';
import type { LocalNames, LocalSecrets } from '../functions/deployment';
import type { OperatorServices } from '../functions/operator';
import { localConfigs, localOnlyBase, localQueuePort, OPERATOR } from '../functions/platforms';
import { type FileSource, memoryFileSource } from '../gateways/file-source';
import { FeedSource } from './change-source';
import { crashablePorts } from './merge-crash-ports';

export interface MemoryParts {
  names: LocalNames;
  secrets: LocalSecrets;
  siteEntry: string;
  clock: Clock;
  log: Log;
  faults: Faults;
  mergeCrash: MergeCrash;
  queues: LocalQueues;
  /** `@connections`: the live gateway's sockets. */
  sockets: SocketsPort;
  /** Invokes a function through the Lambda host (the change feed's consumer). */
  invoke: (fn: FunctionName, event: unknown) => Promise<unknown>;
  catalogueKeysPerDay?: number;
}

export interface MemoryBackend {
  /** Function `fn`'s services: its manifest's ports of the one set of fakes, its own configuration. */
  servicesOf(fn: FunctionName): ServicesOf<FunctionName>;
  /** Every port, as the operator's calls and tests use them; `ddb` and `s3` are the engines' and throw here. */
  operator: OperatorServices;
  /** The files bucket as the file host reads it. */
  files: FileSource;
  /** The change feed in place of the stream poller; no sweeper (the fakes read an expired item as absent). */
  background: ChangeParts;
}

/** What an engine-only member says when reached in the memory mode. */
export const engineOnly = (what: string): never => {
  throw new Error(`${what} is the engines' alone: this runtime runs on the in-memory fakes (start it with backend "engines")`);
};

export function memoryBackend(p: MemoryParts): MemoryBackend {
  const { configOf } = localConfigs(p, localOnlyBase(p.catalogueKeysPerDay));
  const source = new FeedSource(p.invoke, (err) =>
    p.log('error', 'stream consumer failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
  const fakes = memoryServices(p.clock, configOf(OPERATOR), p.log, source.feed);
  const all: Services = crashablePorts(
    withFaults({ ...fakes, queues: localQueuePort(p.queues, p.mergeCrash, p.log), sockets: p.sockets }, p.faults),
    p.mergeCrash,
  );
  const byFunction = new Map(FUNCTIONS.map((f) => [f.name, servicesFor(f.name, { ...all, config: configOf(functionSpec(f.name)) })]));
  const operator = Object.defineProperties({ ...all } as OperatorServices, {
    ddb: { get: () => engineOnly("the operator's DynamoDB client (operator.ddb)") },
    s3: { get: () => engineOnly("the operator's S3 client (operator.s3)") },
  });
  return {
    servicesOf: (fn) => byFunction.get(fn)!,
    operator,
    files: memoryFileSource(fakes.files, p.names.filesPrefix),
    background: { changes: source, sweep: async () => 0 },
  };
}
