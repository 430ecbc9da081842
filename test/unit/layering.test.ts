/**
 * The layers import downwards only (issue 12 point 3): the manifest lives in shared/ so that lib/ (the CDK
 * stack, the local runtime) and shared/ both import it from below, and nothing in shared/ reaches up into
 * lib/, bin/, lambdas/ or test/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph } from '../support/import-graph';
import { importsOf, ROOT, sourceFiles } from '../support/imports';

/**
 * The floors of shared/ (issue 25 point 6), lowest first, and what each may import. The ground floor (the
 * domain, errors, clock, log, telemetry, configuration and the manifest) imports only itself; the packed
 * page format sits on it; the ports on both; adapters (store, platform) and features (auth, files, live,
 * market, …) each stand on the ports and never on each other; the HTTP layer (http, api, pages) on the
 * features; the TypeScript client on top. A file missing from this table fails the first test below.
 */
const FLOORS = {
  ground: [
    'shared/domain/',
    'shared/telemetry/',
    'shared/assets/',
    'shared/clock.ts',
    'shared/errors.ts',
    'shared/log.ts',
    'shared/log-redact.ts',
    'shared/config.ts',
    'shared/topology.ts',
  ],
  format: ['shared/page-format/'],
  ports: ['shared/ports/', 'shared/services.ts'],
  adapters: ['shared/store/', 'shared/platform/'],
  features: [
    'shared/auth/',
    'shared/alerts/',
    'shared/demo/',
    'shared/files/',
    'shared/items/',
    'shared/live/',
    'shared/market/',
    'shared/push/',
    'shared/upload/',
  ],
  http: ['shared/http/', 'shared/api/', 'shared/pages/'],
  client: ['shared/client/'],
} as const;
type Floor = keyof typeof FLOORS;

const MAY_IMPORT: Record<Floor, readonly Floor[]> = {
  ground: ['ground'],
  format: ['ground', 'format'],
  ports: ['ground', 'format', 'ports'],
  adapters: ['ground', 'format', 'ports', 'adapters'],
  features: ['ground', 'format', 'ports', 'features'],
  http: ['ground', 'format', 'ports', 'features', 'http'],
  client: ['ground', 'format', 'ports', 'features', 'http', 'client'],
};

const floorOf = (file: string): Floor | undefined =>
  (Object.keys(FLOORS) as Floor[]).find((f) => FLOORS[f].some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));

/** The imports of shared/ files (resolved to `shared/…` paths without extension) that break `bad`. */
function importsBreaking(files: readonly string[], bad: (target: string, file: string) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((i) => i.target.startsWith('shared/') && bad(i.target, file))
      .map((i) => `${file} imports ${i.specifier}`),
  );
}
const floorOfTarget = (target: string) => floorOf(target.endsWith('.json') ? target : `${target}.ts`) ?? floorOf(`${target}/`);

const FEATURE_OR_ABOVE: readonly Floor[] = ['adapters', 'features', 'http', 'client'];

describe('layering', () => {
  it('keeps shared/ free of imports from lib/, bin/, lambdas/ and test/', () => {
    const upward = sourceFiles('shared').flatMap((file) =>
      importsOf(file)
        .filter((i) => /^(lib|bin|lambdas|test)(\/|$)/.test(i.target))
        .map((i) => `${file} imports ${i.specifier}`),
    );
    expect(upward).toEqual([]);
  });

  it('keeps the HTTP status map in the HTTP layer: no domain, store or other shared module imports it', () => {
    const readers = sourceFiles('shared')
      .filter((file) => importsOf(file).some((i) => i.target === 'shared/http/status'))
      .filter((file) => !/^shared\/(http|pages)\//.test(file));
    expect(readers).toEqual([]);
  });

  it('keeps statuses out of the domain errors', () => {
    expect(readFileSync(join(ROOT, 'shared/errors.ts'), 'utf8')).not.toMatch(/\b[1-5]\d\d\b/);
  });

  it('keeps the domain pure: no SDK, no HTTP layer, no store, no environment, no wall clock', () => {
    const impure = sourceFiles('shared/domain').flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const bad = importsOf(file)
        .filter((i) => i.target.startsWith('@aws-sdk/') || /^shared\/(http|store|live|api)\//.test(i.target))
        .map((i) => `${file} imports ${i.specifier}`);
      if (/process\.env|Date\.now\(/.test(text)) bad.push(`${file} reads the environment or the wall clock`);
      return bad;
    });
    expect(impure).toEqual([]);
  });

  it('lets the live client import nothing but Node built-ins, its own modules and production dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of importsOf(file)) {
        if (i.specifier.startsWith('.')) visit(`${i.target}.ts`);
        else if (!i.specifier.startsWith('node:'))
          packages.add(i.specifier.startsWith('@') ? i.specifier.split('/').slice(0, 2).join('/') : i.specifier.split('/')[0]);
      }
    };
    visit('shared/client/live-client.ts');
    expect([...packages].filter((p) => !(p in pkg.dependencies))).toEqual([]);
  });

  it('gives the live socket one module of message types, imported by the server and the client', () => {
    const readers = ['shared/live/messages.ts', 'shared/live/fanout.ts', 'shared/live/socket.ts', 'shared/client/live-client.ts'];
    for (const file of readers)
      expect(
        importsOf(file).map((i) => i.target),
        file,
      ).toContain('shared/live/message-types');
  });

  it('defines the market shard layout once, used by the store, retention, compaction and the bench', () => {
    const definitions = [...sourceFiles('shared'), ...sourceFiles('test'), ...sourceFiles('lib')].filter((file) =>
      /\b(ROW_SHARDS|PAGE_SHARDS|HISTORY_SHARDS|SHARD_LAYOUT)\s*=/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(definitions).toEqual(['shared/page-format/shard-layout.ts']);
    for (const user of [
      'shared/store/market-store.ts',
      'shared/store/market-retention.ts',
      'shared/market/history-compaction.ts',
      'test/bench/merge-cost.ts',
    ]) {
      expect(
        importsOf(user).map((i) => i.target),
        user,
      ).toContain('shared/page-format/shard-layout');
    }
  });

  it('places every shared/ file on one floor', () => {
    expect(sourceFiles('shared').filter((f) => floorOf(f) === undefined)).toEqual([]);
  });

  it('has no upward import between floors of shared/', () => {
    const upward = sourceFiles('shared').flatMap((file) => {
      const from = floorOf(file) as Floor;
      return importsOf(file)
        .filter((i) => i.target.startsWith('shared/'))
        .flatMap((i) => {
          const to = floorOfTarget(i.target);
          return to === undefined || MAY_IMPORT[from].includes(to) ? [] : [`${file} (${from}) imports ${i.specifier} (${to})`];
        });
    });
    expect(upward).toEqual([]);
  });

  it('keeps config.ts and topology.ts on the ground floor: they import no feature, port or adapter', () => {
    expect(importsBreaking(['shared/config.ts', 'shared/topology.ts'], (target) => floorOfTarget(target) !== 'ground')).toEqual([]);
  });

  it('keeps the ports free of adapters and features', () => {
    expect(importsBreaking(sourceFiles('shared/ports'), (target) => FEATURE_OR_ABOVE.includes(floorOfTarget(target) as Floor))).toEqual([]);
  });

  it('lets market/, files/, live/ and api/ reach storage only through the ports', () => {
    const users = ['market', 'files', 'live', 'api'].flatMap((d) => sourceFiles(`shared/${d}`));
    expect(importsBreaking(users, (target) => /^shared\/(store|platform)\//.test(target))).toEqual([]);
  });

  it('builds HTTP answers in api/ and http/: market/ imports nothing of the HTTP layer', () => {
    expect(importsBreaking(sourceFiles('shared/market'), (target) => floorOfTarget(target) === 'http')).toEqual([]);
  });

  it('gives the packed page format a room of its own below the ports', () => {
    const format = ['page-codec', 'page-columns', 'page-frame', 'page-closes', 'varint', 'shard-layout', 'history-parts'];
    const placed = sourceFiles('shared').filter((f) => format.some((name) => f.endsWith(`/${name}.ts`)));
    expect(placed).toEqual(format.map((name) => `shared/page-format/${name}.ts`).sort());
    expect(importsBreaking(placed, (target) => !['ground', 'format'].includes(floorOfTarget(target) as Floor))).toEqual([]);
  });

  it("keeps dependency failures one error at the ports: nothing above the adapters reads the SDK's error shapes", () => {
    const above = sourceFiles('shared').filter((f) => !['adapters'].includes(floorOf(f) as Floor));
    expect(importsBreaking(above, (target) => target === 'shared/store/dependency-failure')).toEqual([]);
    expect(importsOf('shared/ports/dependency-failure.ts').filter((i) => !i.specifier.startsWith('node:'))).toEqual([]);
  });

  it('has no file cycle (type imports included)', () => {
    expect(cyclesOf(importGraph(['shared', 'lib', 'lambdas', 'bin', 'scripts', 'app']))).toEqual([]);
  });

  it('finds the cycles it checks (the cycle scan itself works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('finds the imports it checks (the scan itself works)', () => {
    const targets = importsOf('shared/topology.ts').map((i) => i.target);
    expect(targets).toContain('shared/domain/market');
    expect(importsOf('lib/stack.ts').some((i) => i.target === 'shared/topology')).toBe(true);
  });
});
