/**
 * The one place log lines are written, by every function and the local runtime (issue 11: no secret in a
 * log). Every string a line carries is redacted (shared/log-redact.ts): caps in capability paths, device
 * tokens, API keys, JWTs, provider secret keys, credentials in query strings and `Authorization` values, and
 * the deployment's own secrets (identity provider key, VAPID private key) wherever they appear. Fields named
 * like credentials are dropped whole. Errors leaving a function are redacted too, since the Lambda runtime
 * logs them. Lines are written by the Powertools Logger of the function the invocation runs in (request id,
 * cold start, sampled debug: shared/telemetry/), as JSON lines to the sink (shared/telemetry/sink.ts).
 */
import type { MiddlewareObj } from '@middy/core';
import { redact, redactedError, redactValue } from './log-redact';
import { loggerFor, PROCESS_SERVICE } from './telemetry/loggers';
import { invocationScope } from './telemetry/scope';

export { keepOutOfLogs, redact, redactedError } from './log-redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;

/** Writes one JSON line (errors to stderr), redacted, through the current function's logger. */
export const jsonLog: Log = (level, msg, data) => {
  const logger = invocationScope.getStore()?.logger ?? loggerFor(PROCESS_SERVICE);
  // Redacted before Powertools sees them (Errors become their redacted stacks); the formatter redacts again.
  logger[level](redact(msg), redactValue(data ?? {}) as Record<string, unknown>);
};

/** Middy: an error leaving the function is redacted first (the Lambda runtime writes it to the log). */
export function redactErrors<E, R>(): MiddlewareObj<E, R> {
  return {
    onError: async (request) => {
      request.error = redactedError(request.error);
    },
  };
}
