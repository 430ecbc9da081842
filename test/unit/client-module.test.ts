/**
 * Issue 15.1 / 12.6: the client module (shared/client/index.ts) is one small module an integrator can bundle:
 * it imports no dev dependency (nor any package at all: the HTTP client's schema imports are types only).
 * Issue 24.7: it works in browsers: bundled for the browser it needs no Node built-in, `Buffer` or `process`.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('the client module', () => {
  it('bundles with no package but Node built-ins, and stays small', async () => {
    const out = await build({
      entryPoints: ['shared/client/index.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      packages: 'external',
    });
    const imports = Object.values(out.metafile.inputs).flatMap((i) => i.imports.filter((x) => x.external).map((x) => x.path));
    const packages = [...new Set(imports)].filter((p) => !p.startsWith('node:'));
    const dev = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> }).devDependencies);
    expect(packages.filter((p) => dev.some((d) => p === d || p.startsWith(`${d}/`)))).toEqual([]);
    expect(packages).toEqual([]);
    // Only the client's own files: the schemas and wire types it names are types, erased from the bundle.
    expect(Object.keys(out.metafile.inputs).sort()).toEqual([
      'shared/client/backoff.ts',
      'shared/client/compression.ts',
      'shared/client/emitter.ts',
      'shared/client/gap-rule.ts',
      'shared/client/http-client.ts',
      'shared/client/index.ts',
      'shared/client/live-client.ts',
      'shared/client/live-options.ts',
      'shared/client/sockets.ts',
    ]);
    expect(out.outputFiles[0].contents.length).toBeLessThan(40_000);
  });

  it('bundles for the browser with no node: import, Buffer or process on any path', async () => {
    const out = await build({
      entryPoints: ['shared/client/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    }).catch((err: { errors?: { text: string }[] }) => {
      throw new Error(`the client does not bundle for the browser: ${(err.errors ?? []).map((e) => e.text).join('; ')}`);
    });
    const imports = Object.values(out.metafile.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imports.filter((p) => p.startsWith('node:'))).toEqual([]);
    // Nothing left for the browser to resolve: the `ws` package (Node 20 only) is loaded lazily by a name no bundler follows.
    expect(imports.filter((p) => !p.startsWith('shared/client/'))).toEqual([]);
    const code = out.outputFiles[0].text;
    expect(code.match(/\b(Buffer|process)\b/g) ?? []).toEqual([]);
    expect(code).not.toMatch(/from\s*['"]ws['"]|import\(\s*['"]ws['"]\s*\)/);
  });
});
