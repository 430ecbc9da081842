/**
 * The project's file import graph and its cycles, for the layering tests (issue 25 point 6): which source file
 * imports which (relative imports resolved to files, type imports included), and every strongly connected
 * group of files, each a cycle.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importsOf, ROOT, sourceFiles } from './imports';

/** Every `.ts` file under the given folders that exist, with the project files each one imports. */
export function importGraph(dirs: readonly string[]): Map<string, string[]> {
  const files = dirs.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => sourceFiles(d));
  const known = new Set(files);
  const fileOf = (target: string) => [`${target}.ts`, target.replace(/\.m?js$/, '.ts'), `${target}/index.ts`, target].find((c) => known.has(c));
  return new Map(
    files.map((f) => [
      f,
      importsOf(f)
        .filter((i) => i.specifier.startsWith('.'))
        .flatMap((i) => fileOf(i.target) ?? []),
    ]),
  );
}

/** The graph's cycles: each strongly connected group of more than one file (or a file importing itself), sorted. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) cycles.push(group.sort());
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}
