/**
 * `npm start`'s command line: its flags and the environment variables it reads, parsed in one place so
 * `--help` lists exactly what is read and anything else is refused with one line (exit 2).
 */

export interface StartOptions {
  demo: boolean;
  port: number;
  dataDir: string;
  clock: 'manual' | 'system';
  clockStart?: number;
  log: boolean;
  /** Every function from its deploy bundle, each in its own worker thread (README "Running the deployed bundles"). */
  bundles: boolean;
}

export type Cli = { kind: 'start'; options: StartOptions } | { kind: 'help' } | { kind: 'error'; message: string };

/** Every flag `npm start -- …` takes. */
export const FLAGS: ReadonlyArray<{ flag: string; text: string }> = [
  { flag: '--demo', text: 'publish demo item data, back-fill a week of two markets, feed them every 20 s, print a key and copy-paste commands' },
  { flag: '--bundles', text: 'run every function from the esbuild bundle synth deploys, each in its own worker thread (no table/storage/merge faults)' },
  { flag: '--help', text: 'print this help and exit (also -h)' },
];

/** Every environment variable `npm start` reads. */
export const ENVIRONMENT: ReadonlyArray<{ name: string; text: string }> = [
  { name: 'PORT', text: 'port of the service on 127.0.0.1 (default 8787; 0 picks a free port, printed in the `ready` line)' },
  { name: 'DATA_DIR', text: 'where tables, files, users, API keys and secrets are kept (default .data; `:memory:` keeps nothing)' },
  { name: 'CLOCK', text: '`system` (default) or `manual`: a clock that moves only through POST /_local/clock' },
  { name: 'CLOCK_START', text: 'start of the manual clock, Unix ms (default: now; with --demo the week before it is replayed)' },
  { name: 'LOG', text: '`info` (default: JSON log lines on stdout) or `quiet` (errors only)' },
];

const DEFAULT_PORT = 8787;
const ALIASES: Record<string, string> = { '-h': '--help' };

export function usage(): string {
  const width = Math.max(...FLAGS.map((f) => f.flag.length), ...ENVIRONMENT.map((e) => e.name.length)) + 2;
  const rows = (items: ReadonlyArray<[string, string]>) => items.map(([name, text]) => `  ${name.padEnd(width)}${text}`).join('\n');
  return [
    'npm start [-- FLAGS]: the whole market data service on this machine (Node 20+, Java 17+).',
    '',
    'Flags:',
    rows(FLAGS.map((f) => [f.flag, f.text])),
    '',
    'Environment:',
    rows(ENVIRONMENT.map((e) => [e.name, e.text])),
    '',
    'Examples: npm start -- --demo    PORT=9000 DATA_DIR=:memory: npm start    Stop with Ctrl-C.',
  ].join('\n');
}

/** Reads the flags and the environment; the first problem found is the one-line error. */
export function parseCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Cli {
  const known = new Set(FLAGS.map((f) => f.flag));
  const given = new Set<string>();
  for (const raw of argv) {
    const arg = ALIASES[raw] ?? raw;
    if (!known.has(arg))
      return {
        kind: 'error',
        message: `unknown ${arg.startsWith('-') ? 'flag' : 'argument'} ${raw}: the flags are ${FLAGS.map((f) => f.flag).join(', ')} (npm start -- --help)`,
      };
    given.add(arg);
  }
  if (given.has('--help')) return { kind: 'help' };
  const port = env.PORT === undefined || env.PORT === '' ? DEFAULT_PORT : Number(env.PORT);
  if (!/^\d*$/.test(env.PORT ?? '') || !Number.isInteger(port) || port < 0 || port > 65535)
    return { kind: 'error', message: `PORT must be a port number 0..65535 (0 picks a free one), not "${env.PORT}"` };
  const clock = env.CLOCK === undefined || env.CLOCK === '' ? 'system' : env.CLOCK;
  if (clock !== 'system' && clock !== 'manual') return { kind: 'error', message: `CLOCK is "system" or "manual", not "${env.CLOCK}"` };
  let clockStart: number | undefined;
  if (env.CLOCK_START !== undefined && env.CLOCK_START !== '') {
    clockStart = Number(env.CLOCK_START);
    if (!/^\d+$/.test(env.CLOCK_START) || !Number.isSafeInteger(clockStart))
      return { kind: 'error', message: `CLOCK_START must be Unix ms (e.g. ${Date.UTC(2026, 0, 1)}), not "${env.CLOCK_START}"` };
  }
  const log = env.LOG === undefined || env.LOG === '' ? 'info' : env.LOG;
  if (log !== 'info' && log !== 'quiet') return { kind: 'error', message: `LOG is "info" or "quiet", not "${env.LOG}"` };
  const dataDir = env.DATA_DIR === undefined || env.DATA_DIR === '' ? '.data' : env.DATA_DIR;
  return { kind: 'start', options: { demo: given.has('--demo'), port, dataDir, clock, clockStart, log: log === 'info', bundles: given.has('--bundles') } };
}
