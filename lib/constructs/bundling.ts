/**
 * How every function is bundled: one esbuild build, used by `ServiceFunction` (and so `npm run synth`), the local
 * runtime's `--bundles` mode and the cold-start bench, so the bench measures exactly the bundles that would be
 * deployed.
 */
import { posix } from 'node:path';
import type { BuildOptions, Metafile } from 'esbuild';

/**
 * CommonJS dependencies (web-push, parts of Powertools) call `require` inside the ESM bundle; give them
 * one. The alias keeps the banner's import from colliding with bundled names.
 */
export const ESM_REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Nothing external: the AWS SDK is bundled from its ES modules and tree-shaken to the commands a function
 * sends, rather than loaded whole from the runtime's copy. Measured on ws-disconnect's bundle (process CPU of
 * the import, median of 9): 57 ms bundled against 144 ms with `@aws-sdk/*` external (issue 12: cold start).
 */
export const EXTERNAL_MODULES: readonly string[] = [];

/** The file Lambda imports (`index.handler` of an ES module), in the function's folder. */
export const ENTRY_FILE = 'index.mjs';

/**
 * The function's build into `outdir`: `index.mjs` and the chunks it imports. Split, because code that only a
 * dynamic `import()` reaches (the SDK's credential providers other than the environment's, the Secrets Manager
 * client, the X-Ray tracer where tracing is off) is otherwise in the one file V8 compiles at init, and every
 * module such an import reaches is wrapped in a lazy initialiser that V8 parses twice (once to skip it, once to
 * run it): half the modules of the api's bundle. Split, those are chunks read only when imported, and the rest is
 * plain hoisted code. Measured on the api's bundle (process CPU of the import, median of 9, interleaved, load
 * ~10): 107 → 92 ms; the merge's 93 → 78 ms.
 */
export function esbuildOptions(entry: string, outdir: string) {
  return {
    entryPoints: [entry],
    bundle: true,
    outdir,
    splitting: true,
    entryNames: 'index',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Prefer ESM builds of dependencies so tree shaking works; fall back to CommonJS.
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_SHIM },
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    external: [...EXTERNAL_MODULES],
    logLevel: 'warning',
  } satisfies BuildOptions;
}

/** The JavaScript files of a build (no source maps), by output path. */
export function codeOutputs(metafile: Metafile): [string, Metafile['outputs'][string]][] {
  return Object.entries(metafile.outputs).filter(([path]) => path.endsWith('.mjs'));
}

/**
 * The output files a function's init loads: its entry and every chunk reached from it through static imports
 * (a chunk reached only through `import()` is read when first imported).
 */
export function initOutputs(metafile: Metafile): string[] {
  const outputs = metafile.outputs;
  // A dynamic import's target is an entry point of the build too; the function's entry is the one named index.mjs.
  const entry = Object.keys(outputs).find((p) => posix.basename(p) === ENTRY_FILE);
  if (!entry) throw new Error('the build has no entry output');
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length) {
    const from = queue.pop()!;
    for (const i of outputs[from].imports) {
      if (i.kind !== 'import-statement' || i.external) continue;
      // Chunk imports are relative to the importing chunk's output path.
      const to = outputs[i.path] ? i.path : posix.join(posix.dirname(from), i.path);
      if (outputs[to] && !seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return [...seen];
}
