/**
 * `npm start`'s command line: its flags and the environment variables it reads, parsed in one place so
 * `--help` lists exactly what is read and anything else is refused with one line (exit 2). A flag given to
 * npm itself (`npm start --demo`, without `--`) reaches us only as npm's `npm_config_demo=true`: it is
 * honoured as the flag (npm prints its own warning about an unknown config, and nothing else would).
 */
import type { LogMode } from './log-lines';

export interface StartOptions {
  demo: boolean;
  port: number;
  /** `:memory:` with `--memory` or `DATA_DIR=:memory:`. */
  dataDir: string;
  /** `--memory`: the whole service on the in-memory fakes (no Java, no engine, nothing kept: lib/local/memory/). */
  memory: boolean;
  /** What the start says before anything else, one line each (a DATA_DIR that --memory ignores). */
  notices?: string[];
  clock: 'manual' | 'system';
  clockStart?: number;
  log: LogMode;
  /** Every function from its deploy bundle, each in its own worker thread (docs/local-runtime.md "Running the deployed bundles"). */
  bundles: boolean;
}

export type Cli = { kind: 'start'; options: StartOptions } | { kind: 'help' } | { kind: 'error'; message: string };

/** Every flag `npm start -- …` takes. */
export const FLAGS: ReadonlyArray<{ flag: string; text: string }> = [
  { flag: '--demo', text: 'publish demo item data, back-fill a week of two markets, feed them every 20 s, print a key and copy-paste commands' },
  { flag: '--bundles', text: 'run every function from the esbuild bundle synth deploys, each in its own worker thread (every fault but the merge crash)' },
  { flag: '--help', text: 'print this help and exit (also -h)' },
  {
    flag: '--memory',
    text: "run the whole service on the in-memory fakes: no Java, no storage engine, nothing kept (units, IAM and SDK faults are the engines' alone)",
  },
];

/** Every environment variable `npm start` reads. */
export const ENVIRONMENT: ReadonlyArray<{ name: string; text: string }> = [
  { name: 'PORT', text: 'port of the service on 127.0.0.1 (default 8787; 0 picks a free port, printed in the `ready` line)' },
  { name: 'DATA_DIR', text: 'where tables, files, users, API keys and secrets are kept (default .data; `:memory:` keeps nothing)' },
  { name: 'CLOCK', text: '`system` (default) or `manual`: a clock that moves only through POST /_local/clock' },
  { name: 'CLOCK_START', text: 'start of the manual clock, Unix ms (default: now; with --demo the week before it is replayed)' },
  {
    name: 'LOG',
    text: '`info` (default: short human lines, no metrics), `json` (the JSON log lines and EMF metrics, as AWS writes them) or `quiet` (errors only)',
  },
];

const DEFAULT_PORT = 8787;
const ALIASES: Record<string, string> = { '-h': '--help' };
const LOG_MODES: Record<string, LogMode> = { info: 'human', json: 'json', quiet: 'quiet' };

/**
 * The flags npm took for its own config (`npm start --demo` without `--`): npm sets `npm_config_<name>` for
 * each (`true`, or the value after `=`), and passes nothing to the script. `--help` stays npm's own.
 */
function npmFlags(env: Readonly<Record<string, string | undefined>>): string[] {
  return FLAGS.map((f) => f.flag)
    .filter((flag) => flag !== '--help')
    .filter((flag) => env[`npm_config_${flag.slice(2)}`] === 'true');
}

export function usage(): string {
  const width = Math.max(...FLAGS.map((f) => f.flag.length), ...ENVIRONMENT.map((e) => e.name.length)) + 2;
  const rows = (items: ReadonlyArray<[string, string]>) => items.map(([name, text]) => `  ${name.padEnd(width)}${text}`).join('\n');
  return [
    'npm start [-- FLAGS]: the whole market data service on this machine (Node 20+; Java 17+ for the storage engines, none with --memory).',
    '',
    'Flags:',
    rows(FLAGS.map((f) => [f.flag, f.text])),
    '',
    'Environment:',
    rows(ENVIRONMENT.map((e) => [e.name, e.text])),
    '',
    'A flag given to npm itself (`npm start --demo`, without `--`) is taken too: npm passes it as npm_config_demo=true.',
    'Examples: npm start -- --demo    npm start -- --memory    PORT=9000 LOG=json npm start    Stop with Ctrl-C.',
  ].join('\n');
}

/** Reads the flags and the environment; the first problem found is the one-line error. */
export function parseCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Cli {
  const known = new Set(FLAGS.map((f) => f.flag));
  const given = new Set<string>(npmFlags(env));
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
  const logName = env.LOG || 'info';
  if (!Object.hasOwn(LOG_MODES, logName)) return { kind: 'error', message: `LOG is "info", "json" or "quiet", not "${env.LOG}"` };
  const log = LOG_MODES[logName];
  const memory = given.has('--memory');
  if (memory && given.has('--bundles'))
    return { kind: 'error', message: '--bundles runs the deployed bundles on the storage engines, --memory runs on the in-memory fakes: drop one of them' };
  const dirGiven = env.DATA_DIR !== undefined && env.DATA_DIR !== '';
  // The fakes keep nothing: a data folder means nothing to them (said, and no folder is made or locked).
  const notices = memory && dirGiven && env.DATA_DIR !== ':memory:' ? [`DATA_DIR="${env.DATA_DIR}" is not used: --memory keeps nothing`] : [];
  const dataDir = memory ? ':memory:' : dirGiven ? env.DATA_DIR! : '.data';
  return {
    kind: 'start',
    options: {
      demo: given.has('--demo'),
      port,
      dataDir,
      memory,
      clock,
      clockStart,
      log,
      bundles: given.has('--bundles'),
      ...(notices.length ? { notices } : {}),
    },
  };
}
