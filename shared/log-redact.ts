/**
 * Redaction of log lines (issue 11: no secret in a log): caps in capability paths, device tokens, API keys,
 * JWTs, provider secret keys, credentials in query strings and `Authorization` values, and the deployment's
 * own secrets wherever they appear; fields named like credentials are dropped whole. Kept apart from the
 * writer (shared/log.ts) so the Powertools formatter (shared/telemetry/log-format.ts) can use it too.
 */
const CAP = '[A-Za-z0-9_-]{22}';
const SEGMENT = '[^/\\s"\'\\\\]+';

/** Patterns and what they become; the first group (when there is one) is kept. */
const PATTERNS: Array<[RegExp, string]> = [
  // Capability paths (spec files-and-live: Capability files) and handed-over answers.
  [new RegExp(`(live/v1/${SEGMENT}/c?\\d+-)${CAP}`, 'g'), '$1[cap]'],
  [new RegExp(`(books/v1/${SEGMENT}/\\d+-)${CAP}`, 'g'), '$1[cap]'],
  [new RegExp(`(candles/v1/(?:m1|h1c|d1c)/${SEGMENT}/)${CAP}`, 'g'), '$1[cap]'],
  [new RegExp(`(volume/v1/${SEGMENT}/)${CAP}`, 'g'), '$1[cap]'],
  [new RegExp(`(answers/v1/)${CAP}`, 'g'), '$1[cap]'],
  [new RegExp(`(quarantine/${SEGMENT}/\\d+-)${CAP}`, 'g'), '$1[cap]'],
  // Credentials by shape.
  [/(svc_dev_)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  [/\b(ak_)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  [/\b(sk_)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  [/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*)?/g, '[jwt]'],
  // Credentials by place: query parameters and Authorization values.
  [/([?&](?:token|key|secret|code|auth)=)[^&\s"'#]+/gi, '$1[redacted]'],
  [/\b(Bearer\s+|vapid\s+t=)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]'],
];

/** Fields whose value is a credential whatever it looks like (compared lower-case). */
const SECRET_FIELDS = new Set(['token', 'secret', 'secretkey', 'privatekey', 'password', 'authorization', 'cookie', 'code', 'apikey', 'key']);

/** The deployment's own secrets, redacted wherever they appear (set at start-up). */
const known = new Set<string>();

/** Adds secrets that must never reach a log line (values shorter than 8 characters are ignored). */
export function keepOutOfLogs(...secrets: Array<string | null | undefined>): void {
  for (const s of secrets) if (s && s.length >= 8) known.add(s);
}

/** A text with every secret it carries replaced. */
export function redact(text: string): string {
  let out = text;
  for (const s of known) if (out.includes(s)) out = out.split(s).join('[secret]');
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A log line's fields, redacted: strings everywhere, credential fields whole, errors as their redacted stack. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (value instanceof Error) return redact(value.stack ?? `${value.name}: ${value.message}`);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.has(k.toLowerCase()) ? '[redacted]' : redactValue(v, depth + 1);
  return out;
}

/** A copy of an error whose message and stack are redacted (its other fields are left behind). */
export function redactedError(err: unknown): Error {
  if (!(err instanceof Error)) return new Error(redact(String(err)));
  const copy = new Error(redact(err.message));
  copy.name = err.name;
  copy.stack = redact(err.stack ?? `${err.name}: ${err.message}`);
  return copy;
}
