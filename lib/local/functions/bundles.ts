/**
 * The deploy bundles for the local runtime's `--bundles` mode: each function built with the very options
 * synth builds it with (lib/constructs/bundling.ts `esbuildOptions`), into a folder OUTSIDE the project tree,
 * laid out as Lambda lays out a function: `<dir>/<function>/index.mjs` and its `chunks/`, under a
 * `node_modules` that holds only what the Lambda Node.js runtime provides (`@aws-sdk/*`, a link to the project's copy). An import the
 * bundle left external by mistake therefore fails here as it would on AWS, instead of quietly resolving from
 * the project's node_modules.
 *
 * Built fresh on every start rather than read from `cdk.out`: `cdk.out` may be missing or older than the
 * sources (the tests would then run yesterday's code), and synth takes a minute where esbuild takes seconds.
 * Same function, same options, so the same bytes as `npm run synth` writes.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { FunctionName, FunctionSpec } from '../../../shared/topology';
import { codeOutputs, ENTRY_FILE, EXTERNAL_MODULES, esbuildOptions, initOutputs } from '../../constructs/bundling';

export interface BuiltBundle {
  name: FunctionName;
  /** The bundle, as Lambda's `/var/task/index.mjs`. */
  file: string;
  /** The external packages it imports (statically or dynamically), as esbuild's metafile lists them. */
  externals: string[];
  /** The `@aws-sdk/client-*` packages it imports statically (loaded at its init anyway). */
  sdkClients: string[];
}

export interface Bundles {
  dir: string;
  bundles: Map<FunctionName, BuiltBundle>;
  /** A module beside the bundles that imports a package as the bundles resolve it (lib/local/functions/bundle-worker.mjs). */
  sdkShim: string;
  remove(): void;
}

export interface BundleBuildOptions {
  /** More modules left external than synth leaves (tests: a bundling mistake, to show it fails at start). */
  alsoExternal?: readonly string[];
}

/** Builds every function's bundle into a fresh temporary folder (removed by `remove`). */
export async function buildBundles(root: string, specs: readonly FunctionSpec[], opts: BundleBuildOptions = {}): Promise<Bundles> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-bundles-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    // What the Lambda runtime provides, and nothing else: the SDK (its own dependencies resolve from its real path).
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(join(root, 'node_modules', '@aws-sdk'), join(dir, 'node_modules', '@aws-sdk'), 'dir');
    const sdkShim = join(dir, 'local-sdk-shim.mjs');
    writeFileSync(sdkShim, 'export const load = (name) => import(name);\n');
    const built = await Promise.all(
      specs.map(async (spec): Promise<BuiltBundle> => {
        const out = join(dir, spec.name);
        mkdirSync(out);
        const file = join(out, ENTRY_FILE);
        const options = esbuildOptions(join(root, spec.entry), out);
        const result = await build({ ...options, external: [...EXTERNAL_MODULES, ...(opts.alsoExternal ?? [])], metafile: true, logLevel: 'error' });
        // The entry and its chunks: an external import anywhere in them is one the function may make.
        const imports = codeOutputs(result.metafile).flatMap(([, o]) => o.imports);
        const externals = [...new Set(imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => i.path))].sort();
        const atInit = initOutputs(result.metafile).flatMap((path) => result.metafile.outputs[path].imports);
        const sdkClients = [...new Set(atInit.filter((i) => i.kind === 'import-statement' && i.path.startsWith('@aws-sdk/client-')).map((i) => i.path))];
        return { name: spec.name, file, externals, sdkClients };
      }),
    );
    return { dir, bundles: new Map(built.map((b) => [b.name, b])), sdkShim, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
