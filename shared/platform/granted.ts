/**
 * The ports a function's manifest access grants, at run time: the same rule as `GrantedPorts` in
 * shared/services.ts (test/unit/services-of.test.ts holds the two together). Both `awsServices` and
 * `memoryServices`' per-function view build exactly these, so no root is handed a port its entry does not list.
 */
import type { Core, PortName, Services, ServicesOf } from '../services';
import { type FunctionName, type FunctionSpec, functionSpec } from '../topology';
import type { ClientName } from './platform';

/** Every port, in one order (the operator's bag of the local runtime holds them all). */
export const PORT_NAMES: readonly PortName[] = [
  'market',
  'settings',
  'identity',
  'uploads',
  'catalogue',
  'connections',
  'files',
  'work',
  'queues',
  'sockets',
  'secrets',
];

export const CORE: readonly Core[] = ['config', 'clock', 'log'];

/** The ports `access` grants: its table ports, the buckets, queues, `@connections` and the origin secret. */
export function grantedPorts(access: FunctionSpec['access']): PortName[] {
  const granted = new Set<PortName>(access.tablePorts ?? []);
  if (access.bucket) granted.add('files');
  if (access.workBucket === 'write') granted.add('work');
  if (access.queues) granted.add('queues');
  if (access.connections === true) granted.add('sockets');
  if (access.secrets?.includes('origin')) granted.add('secrets');
  return PORT_NAMES.filter((p) => granted.has(p));
}

/** The platform client each port is built over. */
export const CLIENT_OF = {
  market: 'ddb',
  settings: 'ddb',
  identity: 'ddb',
  uploads: 'ddb',
  catalogue: 'ddb',
  connections: 'ddb',
  files: 'buckets',
  work: 'buckets',
  queues: 'queues',
  sockets: 'sockets',
  secrets: 'secrets',
} as const satisfies { readonly [P in PortName]: ClientName };

/** Function `F`'s view of a whole set of services: the core and exactly the ports its access grants. */
export function servicesFor<F extends FunctionName>(fn: F, all: Services): ServicesOf<F> {
  const keys = [...CORE, ...grantedPorts(functionSpec(fn).access)];
  return Object.fromEntries(keys.map((k) => [k, all[k]])) as unknown as ServicesOf<F>;
}
