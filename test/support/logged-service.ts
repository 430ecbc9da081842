/**
 * Runs the service in a child process (test/support/logged-runtime.ts) and keeps every line it writes to
 * stdout and stderr, so a test can read the whole log of a run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { DEFAULT_START, type Local, localClient } from './local';

export interface LoggedService extends Omit<Local, 'runtime' | 'close' | 'directBase'> {
  /** The runtime's data directory (its identity secret and VAPID keys live there). */
  dataDir: string;
  /** The table and bucket suffix: the bucket is `market-files-<name>` on the shared s3rver. */
  name: string;
  /** Everything the process wrote so far, stdout and stderr interleaved as they came. */
  output(): string;
  close(): Promise<void>;
}

export async function startLoggedService(): Promise<LoggedService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'logged-runtime-'));
  const name = randomBytes(6).toString('hex');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'logged-runtime.ts')], {
    env: {
      ...process.env,
      LOGGED_DATA_DIR: dataDir,
      LOGGED_CLOCK_START: String(DEFAULT_START),
      LOGGED_DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      LOGGED_S3_ENDPOINT: inject('s3Endpoint'),
      LOGGED_NAME: name,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the logged runtime did not start:\n${output}`)), 60_000);
    const look = () => {
      const m = /^ready (\S+)$/m.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => reject(new Error(`the logged runtime exited with ${code}:\n${output}`)));
  });
  return {
    ...localClient(base),
    dataDir,
    name,
    output: () => output,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
