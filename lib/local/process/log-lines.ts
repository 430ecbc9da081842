/**
 * What `npm start` prints of the service's lines (LOG, lib/local/process/cli.ts). The functions write the JSON lines
 * AWS gets (Powertools log lines and EMF metric blobs); on a terminal those buried the `ready` line, the
 * demo's key and its curl lines (hundreds before `ready`, most of them metrics). So by default each log line
 * is printed as one short human line (time, level, service, message, its own fields) and metrics not at
 * all; `LOG=json` prints the lines as they are, `LOG=quiet` errors only. The lines come already redacted
 * (shared/telemetry/sink.ts): this only drops and shortens.
 */
import { consoleSink, type LineLevel, type LogSink } from '../../../shared/telemetry/sink';

/** What the service prints: short human lines (no metrics), the JSON lines as AWS writes them (EMF metrics included), or errors only. */
export type LogMode = 'human' | 'json' | 'quiet';

/** Fields Powertools adds to every line: context a human line leaves out. */
const STANDARD = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'cold_start',
  'function_name',
  'function_memory_size',
  'function_arn',
  'function_request_id',
  'xray_trace_id',
]);
const MAX_VALUE = 80;
const MAX_MESSAGE = 160;
const MAX_LINE = 240;

const shorten = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A field's value on one line: a string's first line (a stack's message), anything else as JSON. */
function valueText(value: unknown, max = MAX_VALUE): string {
  const text = typeof value === 'string' ? (value.split('\n')[0] ?? '').trim() : JSON.stringify(value);
  return shorten(text, max);
}

/** An EMF line: CloudWatch's metric blob, not a log line. */
const isMetrics = (record: Record<string, unknown>): boolean => '_aws' in record;

/**
 * The human form of one JSON line: `HH:MM:SS level service: message key=value …`, at most 240 characters;
 * null for a metric blob; a line that is not a JSON object as it came.
 */
export function humanLine(line: string): string | null {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) return line;
  const r = record as Record<string, unknown>;
  if (isMetrics(r)) return null;
  const time = typeof r.timestamp === 'string' ? r.timestamp.slice(11, 19) : '';
  const level = typeof r.level === 'string' ? r.level : 'info';
  const service = typeof r.service === 'string' ? `${r.service}: ` : '';
  const fields = Object.entries(r)
    .filter(([k, v]) => !STANDARD.has(k) && v !== undefined && v !== null)
    .map(([k, v]) => ` ${k}=${valueText(v)}`)
    .join('');
  return shorten(`${time} ${level.padEnd(5)} ${service}${valueText(r.message ?? '', MAX_MESSAGE)}${fields}`.trim(), MAX_LINE);
}

/** The line to print in `mode`, or null when the mode prints nothing of it. */
export function printedLine(mode: LogMode, line: string, level: LineLevel): string | null {
  if (mode === 'json') return line;
  if (mode === 'quiet' && level !== 'error') return null;
  return humanLine(line);
}

/**
 * A runtime's sink (shared/telemetry/sink.ts): every line goes to the taps (tests hear what the service
 * writes, printed or not), then is printed as `mode` says: a LogMode, `true` every JSON line, `false` only
 * the error lines, as JSON.
 */
export class ServiceLines {
  private readonly taps = new Set<(line: string) => void>();

  constructor(private readonly mode: boolean | LogMode) {}

  tap(listener: (line: string) => void): () => void {
    this.taps.add(listener);
    return () => this.taps.delete(listener);
  }

  readonly sink: LogSink = (line, level) => {
    for (const t of this.taps) t(line);
    const mode = this.mode;
    const printed = typeof mode === 'string' ? printedLine(mode, line, level) : mode || level === 'error' ? line : null;
    if (printed !== null) consoleSink(printed, level);
  };
}
