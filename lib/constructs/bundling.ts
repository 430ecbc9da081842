/**
 * How every function is bundled: the options `ServiceFunction` gives `NodejsFunction` (and so `npm run synth`),
 * and the same build as plain esbuild options for the cold-start bench (test/bench/cold.ts), so the bench
 * measures exactly the bundles that would be deployed.
 */

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

/** The bundling options shared by synth and the bench (NodejsFunction's names). */
export const BUNDLING = {
  target: 'node22',
  // Prefer ESM builds of dependencies so tree shaking works; fall back to CommonJS.
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_SHIM,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  externalModules: EXTERNAL_MODULES,
} as const;

/** The same build as esbuild's own options (what NodejsFunction passes on its command line). */
export function esbuildOptions(entry: string, outfile: string) {
  return {
    entryPoints: [entry],
    bundle: true,
    outfile,
    platform: 'node' as const,
    format: 'esm' as const,
    target: BUNDLING.target,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    external: [...BUNDLING.externalModules],
    logLevel: 'warning' as const,
  };
}
