/**
 * Builds the client package (packages/client, issue 24.7) from shared/client: the JavaScript bundled by
 * esbuild into one ESM file for browsers and Node 20+, and the declarations emitted by tsc. Both land in the
 * git-ignored `packages/client/dist`; `npm pack` in packages/client runs this first (its `prepack`).
 *
 * The declarations are tsc's own, one file per module the client's types reach (the answer types are
 * inferred from the zod schemas, so the schema modules come along, and the package depends on zod for its
 * types). tsc keeps the source's extensionless relative imports; they are rewritten to `.js` here so the
 * declarations resolve under `moduleResolution: "nodenext"` as well as `"bundler"`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PACKAGE_DIR = join(ROOT, 'packages/client');
const ENTRY = join(ROOT, 'shared/client/index.ts');
const DIST = join(PACKAGE_DIR, 'dist');
const TYPES = join(DIST, 'types');

/** The JavaScript: one ESM file with no import a browser could not load (`ws` is loaded lazily by name). */
async function buildJs(): Promise<void> {
  await build({
    entryPoints: [ENTRY],
    outfile: join(DIST, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/** The declarations, or the compiler's errors. */
function buildTypes(): void {
  const program = ts.createProgram([ENTRY], {
    declaration: true,
    emitDeclarationOnly: true,
    outDir: TYPES,
    rootDir: ROOT,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    resolveJsonModule: true,
  });
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
    throw new Error(`declarations failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

function declarationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? declarationFiles(path) : path.endsWith('.d.ts') ? [path] : [];
  });
}

/** `'./x'` → `'./x.js'` (or `'./x/index.js'`), checked against the emitted files, in `from '…'` and `import('…')`. */
export function withJsExtensions(text: string, file: string): string {
  return text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\2/g, (whole, lead: string, quote: string, spec: string) => {
    if (/\.(js|json)$/.test(spec)) return whole;
    const base = resolve(dirname(file), spec);
    const target = existsSync(`${base}.d.ts`) ? `${spec}.js` : existsSync(join(base, 'index.d.ts')) ? `${spec}/index.js` : null;
    if (!target) throw new Error(`${relative(ROOT, file)}: cannot resolve ${spec}`);
    return `${lead}${quote}${target}${quote}`;
  });
}

export async function buildClientPackage(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  await buildJs();
  buildTypes();
  for (const file of declarationFiles(TYPES)) writeFileSync(file, withJsExtensions(readFileSync(file, 'utf8'), file));
  writeFileSync(join(DIST, 'index.d.ts'), "export * from './types/shared/client/index.js';\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildClientPackage().then(
    () => console.log(`built ${relative(process.cwd(), DIST) || DIST}`),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
