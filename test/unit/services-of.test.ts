/**
 * Issue 25 point 1: a root takes exactly the ports its manifest entry grants. `ServicesOf<F>` is derived from the
 * manifest's access (shared/services.ts): the typecheck (`npx tsc`, which checks this file) refuses a port the
 * access does not list (`@ts-expect-error` below fails the typecheck if the line ever compiles). At run time,
 * `awsServices(fn, platform)` builds exactly those ports and asks the platform only for the clients they use,
 * and `servicesFor(fn, memoryServices(clock))` hands a root the same set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import { awsServices } from '../../shared/platform/aws-services';
import { grantedPorts, servicesFor } from '../../shared/platform/granted';
import type { ClientName, Platform } from '../../shared/platform/platform';
import { TABLE_ADAPTERS } from '../../shared/platform/table-adapters';
import type { Services, ServicesOf } from '../../shared/services';
import { memoryConfig, memoryServices } from '../../shared/store/memory/services';
import { FUNCTIONS, type FunctionName, functionSpec } from '../../shared/topology';

/**
 * What each function's code uses, read from the manifest's access of today (shared/topology.ts) by its rules:
 * its table ports, `files` for a bucket, `work` for the work bucket, `queues`, `sockets` for `@connections`,
 * `secrets` for the origin secret.
 */
const EXPECTED: Record<FunctionName, readonly string[]> = {
  api: ['market', 'settings', 'identity', 'uploads', 'catalogue', 'files', 'work', 'secrets'],
  upload: ['market', 'identity', 'uploads', 'catalogue', 'files', 'queues', 'secrets'],
  pages: ['market', 'identity', 'catalogue', 'files', 'secrets'],
  'ws-connect': ['identity', 'connections', 'secrets'],
  'ws-message': ['identity', 'connections', 'sockets'],
  'ws-disconnect': ['connections'],
  merge: ['market', 'settings', 'identity', 'files', 'queues'],
  fanout: ['market', 'connections', 'sockets'],
  push: ['settings', 'queues'],
  seal: ['market', 'files'],
  snapshot: ['market', 'catalogue', 'files', 'work'],
  retention: ['market', 'uploads', 'catalogue', 'files'],
  items: ['market', 'catalogue', 'files'],
  'live-sweep': ['identity', 'connections', 'sockets'],
  redrive: ['market', 'files', 'queues'],
};
const CORE = ['clock', 'config', 'log'];
const sorted = (xs: readonly string[]) => [...xs].sort();

/** Which client each port is built over; a platform getter outside the function's set throws. */
const CLIENT: Record<string, ClientName> = {
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
};

function recordingPlatform(allowed: ReadonlySet<ClientName>) {
  const asked = new Set<ClientName>();
  const marker = (name: string) => ({ marker: name });
  const getter = (name: ClientName, value: () => unknown) => () => {
    if (!allowed.has(name)) throw new Error(`the platform was asked for ${name}`);
    asked.add(name);
    return value();
  };
  const config = memoryConfig();
  const platform = {
    config,
    clock: new ManualClock(0),
    log: () => undefined,
    ddb: getter('ddb', () => marker('ddb')),
    s3: getter('s3', () => marker('s3')),
    connections: getter('connections', () => marker('connections')),
    buckets: getter('buckets', () => ({ files: marker('files'), work: marker('work') })),
    queues: getter('queues', () => marker('queues')),
    sockets: getter('sockets', () => marker('sockets')),
    secrets: getter('secrets', () => marker('secrets')),
  } as unknown as Platform<ClientName>;
  return { platform, asked };
}

const ROOT_DIR = join(__dirname, '..', '..');

describe('ServicesOf: a root takes the ports its manifest access grants', () => {
  it('derives each function’s ports from its access as the manifest states them', () => {
    for (const spec of FUNCTIONS) expect([spec.name, sorted(grantedPorts(spec.access))]).toEqual([spec.name, sorted(EXPECTED[spec.name])]);
  });

  it.each(FUNCTIONS.map((f) => f.name))('awsServices(%s) builds exactly its ports, over only the clients they need', (fn) => {
    const clients = new Set(EXPECTED[fn].map((p) => CLIENT[p]));
    const { platform, asked } = recordingPlatform(clients);
    const svc = awsServices(fn, platform as never, TABLE_ADAPTERS);
    expect(sorted(Object.keys(svc))).toEqual(sorted([...CORE, ...EXPECTED[fn]]));
    expect(sorted([...asked])).toEqual(sorted([...clients]));
    const s = svc as unknown as Record<string, unknown>;
    if (EXPECTED[fn].includes('files')) expect(s.files).toEqual({ marker: 'files' });
    if (EXPECTED[fn].includes('work')) expect(s.work).toEqual({ marker: 'work' });
    if (EXPECTED[fn].includes('sockets')) expect(s.sockets).toEqual({ marker: 'sockets' });
    if (EXPECTED[fn].includes('queues')) expect(s.queues).toEqual({ marker: 'queues' });
    if (EXPECTED[fn].includes('secrets')) expect(s.secrets).toEqual({ marker: 'secrets' });
  });

  it('refuses to build a table port whose adapter the entry did not name, at the typecheck and at run time', () => {
    const { platform } = recordingPlatform(new Set(['ddb']));
    // @ts-expect-error ws-disconnect's manifest grants the connections port: its entry must name that adapter.
    expect(() => awsServices('ws-disconnect', platform as never, {})).toThrow(/no table adapter for the connections port/);
  });

  it.each(FUNCTIONS.map((f) => f.name))(
    'lambdas/%s/index.ts imports exactly the table adapters of its manifest ports, so its bundle carries no other',
    (fn) => {
      const text = readFileSync(join(ROOT_DIR, 'lambdas', fn, 'index.ts'), 'utf8');
      const imported = [...text.matchAll(/from '\.\.\/\.\.\/shared\/store\/dynamo-(\w+)'/g)].map((m) => m[1]).sort();
      const tablePorts = EXPECTED[fn].filter((p) => CLIENT[p] === 'ddb').sort();
      expect(imported).toEqual(tablePorts);
      expect(text).not.toContain('table-adapters');
    },
  );

  it.each(FUNCTIONS.map((f) => f.name))('servicesFor(%s, memoryServices) hands its root the same ports, the fakes themselves', (fn) => {
    const all = memoryServices(new ManualClock(0));
    const svc = servicesFor(fn, all) as unknown as Record<string, unknown>;
    expect(sorted(Object.keys(svc))).toEqual(sorted([...CORE, ...EXPECTED[fn]]));
    for (const k of Object.keys(svc)) expect(svc[k]).toBe(all[k as keyof Services]);
  });

  it('refuses, at the typecheck, a port the access does not grant', () => {
    expectTypeOf<keyof ServicesOf<'ws-disconnect'>>().toEqualTypeOf<'config' | 'clock' | 'log' | 'connections'>();
    expectTypeOf<keyof ServicesOf<'push'>>().toEqualTypeOf<'config' | 'clock' | 'log' | 'settings' | 'queues'>();
    expectTypeOf<keyof ServicesOf<'fanout'>>().toEqualTypeOf<'config' | 'clock' | 'log' | 'connections' | 'market' | 'sockets'>();
    const push = servicesFor('push', memoryServices(new ManualClock(0)));
    // @ts-expect-error push's access names no bucket: its root cannot name the files port
    expect(push.files).toBeUndefined();
    const disconnect = servicesFor('ws-disconnect', memoryServices(new ManualClock(0)));
    // @ts-expect-error ws-disconnect's access names neither the market's ports nor @connections
    expect(disconnect.market ?? disconnect.sockets).toBeUndefined();
    // @ts-expect-error a root's services are typed by its own function: the api's are not the upload's (no queues)
    const asUpload: ServicesOf<'upload'> = servicesFor('api', memoryServices(new ManualClock(0)));
    expect(asUpload).toBeDefined();
    expect(functionSpec('push').access.bucket).toBeUndefined();
  });
});
