/** The project's own source files and what each imports (static, dynamic and type imports), for layering tests. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Every `.ts` file under `dir` (relative to the project root). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(ROOT, d))) {
      const path = join(d, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

export interface Import {
  /** As written. */
  specifier: string;
  /** A relative import resolved against the project root (`shared/store/keys`), else the package name as written. */
  target: string;
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one source file. */
export function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = m[3] ?? m[4];
    if (!specifier) continue;
    const target = specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)) : specifier;
    out.push({ specifier, target, typeOnly: m[2] !== undefined });
  }
  return out;
}
