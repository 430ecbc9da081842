/**
 * Rooms you can find your way in (issue 25 point 7): no source file of the service, its stack, its local
 * runtime, its scripts, its website or its benches is over 500 lines (a file past that is doing more than
 * one thing: split it by concept rather than raise the bar), and the local runtime's folder is in rooms.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/imports';

const MAX_LINES = 500;
const SOURCE_DIRS = ['lib', 'shared', 'lambdas', 'scripts', 'app', 'bin', 'test/bench'];
/** Source by its ending: code, styles, pages and the Java launcher; not data or prose. */
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|html|java)$/;
/** Built or installed, never written by hand. */
const SKIPPED = new Set(['node_modules', 'dist', 'build', 'cdk.out']);

function sourceFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(ROOT, d))) {
      if (SKIPPED.has(name)) continue;
      const path = join(d, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (SOURCE.test(name)) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/** Lines as `wc -l` counts them (a last line without its newline counts too). */
function lineCount(file: string): number {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source file size', () => {
  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const files = SOURCE_DIRS.flatMap(sourceFilesUnder);
    // The walk found the source at all (a renamed folder would otherwise pass this test vacuously).
    expect(files).toContain('lib/local/runtime.ts');
    expect(files.length).toBeGreaterThan(300);
    const over = files.map((file) => ({ file, lines: lineCount(file) })).filter((f) => f.lines > MAX_LINES);
    expect(over.map((f) => `${f.file}: ${f.lines} lines`)).toEqual([]);
  });
});

describe("the local runtime's rooms", () => {
  it('keeps only the composition at the top of lib/local: every other file is in a room (engines/, gateways/, …)', () => {
    const top = readdirSync(join(ROOT, 'lib/local')).filter((name) => !statSync(join(ROOT, 'lib/local', name)).isDirectory());
    expect(top.sort()).toEqual(['options.ts', 'runtime.ts']);
  });
});
