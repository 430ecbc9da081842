/**
 * The layers import downwards only (issue 12 point 3): the manifest lives in shared/ so that lib/ (the CDK
 * stack, the local runtime) and shared/ both import it from below, and nothing in shared/ reaches up into
 * lib/, bin/, lambdas/ or test/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, ROOT, sourceFiles } from '../support/imports';

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
    expect(definitions).toEqual(['shared/store/shard-layout.ts']);
    for (const user of [
      'shared/store/market-store.ts',
      'shared/store/market-retention.ts',
      'shared/market/history-compaction.ts',
      'test/bench/merge-cost.ts',
    ]) {
      expect(
        importsOf(user).map((i) => i.target),
        user,
      ).toContain('shared/store/shard-layout');
    }
  });

  it('finds the imports it checks (the scan itself works)', () => {
    const targets = importsOf('shared/topology.ts').map((i) => i.target);
    expect(targets).toContain('shared/domain/market');
    expect(importsOf('lib/stack.ts').some((i) => i.target === 'shared/topology')).toBe(true);
  });
});
