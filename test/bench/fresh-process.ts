/**
 * A bench in a Node process of its own, as a Lambda instance is one: a CPU figure taken after other sections of
 * the same run inherits their heap (the validation section's 200000-entry books leave an old space that every
 * later collection walks), which no merge instance has. On 2026-11-28 the same merge measured 138.5 ms of main
 * thread inside the whole run and 92.3 ms alone, minutes apart on the quiet machine.
 *
 * `inFreshProcess(module, exportName)` runs `exportName()` of `module` (a path under test/bench/) in a child
 * Node with tsx and answers its result, which must be plain data (JSON). The child's output goes to this
 * process's stderr, its answer to a file; a child that fails makes the section fail (MISSING), never a number.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const RUNNER = join(HERE, 'fresh-runner.ts');

export async function inFreshProcess<T>(module: string, exportName: string): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fresh-'));
  const out = join(dir, 'result.json');
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, join(HERE, module), exportName, out], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`${module} ${exportName}() in a fresh process exited ${code}`);
    return JSON.parse(readFileSync(out, 'utf8')) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
