/**
 * A child process run to its end without blocking the test worker: `spawnSync` holds the worker's event loop for
 * the child's whole run, and a vitest worker that cannot read its runner's reply for 60 s fails the run with
 * "[vitest-worker]: Timeout calling onTaskUpdate" though every test passed (a synth in a child took 85 s on the
 * loaded 2-core machine). Resolves what `spawnSync` returns: the exit status (null when killed), stdout, stderr.
 */
import { spawn } from 'node:child_process';

export interface ChildRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runChild(command: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = opts.timeout ? setTimeout(() => child.kill('SIGTERM'), opts.timeout) : undefined;
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
