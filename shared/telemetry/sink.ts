/**
 * Where every line goes: the structured log lines of the Powertools loggers and the EMF lines of the
 * Powertools metrics alike. In AWS that is stdout / stderr (CloudWatch Logs reads EMF from there); the local
 * runtime sets its own sink, so its tests can read the same lines it prints. Each line is redacted once more
 * as a whole here, so no field Powertools adds by itself can carry a secret either.
 */
import { Console } from 'node:console';
import { redact } from '../log-redact';

export type LineLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogSink = (line: string, level: LineLevel) => void;

/**
 * In Lambda, straight to the process's stdout and stderr as Powertools does: the runtime's patched global
 * console would put a text prefix (time, request id, level) before each line, and CloudWatch reads EMF only
 * from lines that are the JSON object alone. Elsewhere the global console (looked up at call time: tests spy on it).
 */
const lambdaConsole =
  process.env.AWS_LAMBDA_FUNCTION_NAME && !process.env.POWERTOOLS_DEV ? new Console({ stdout: process.stdout, stderr: process.stderr }) : null;

/** Errors to stderr, the rest to stdout. */
export const consoleSink: LogSink = (line, level) => {
  const out = lambdaConsole ?? console;
  if (level === 'error') out.error(line);
  else out.log(line);
};

let current: LogSink = consoleSink;

/** Replaces the sink (null: back to the console); returns the sink it replaced. */
export function setLogSink(sink: LogSink | null): LogSink {
  const before = current;
  current = sink ?? consoleSink;
  return before;
}

const write =
  (level: LineLevel) =>
  (line: unknown, ...rest: unknown[]) =>
    current(redact([line, ...rest].map(String).join(' ')), level);

/**
 * The console Powertools writes to (its `console` property): every method ends in the sink. `trace` and
 * `critical` write as Powertools' own Lambda console does (stdout, stderr).
 */
export const sinkConsole = {
  log: write('info'),
  info: write('info'),
  debug: write('debug'),
  trace: write('debug'),
  warn: write('warn'),
  error: write('error'),
};

/** Points a Powertools Logger's or Metrics' private console at the sink. */
export function toSink<T extends object>(target: T): T {
  (target as unknown as { console: typeof sinkConsole }).console = sinkConsole;
  return target;
}
