/**
 * One Powertools Logger per service name (a function's name, or the process's own for lines written outside
 * any invocation), made once: redacting formatter, lines to the sink. Sampled debug: Powertools reads
 * `POWERTOOLS_LOGGER_SAMPLE_RATE` (0..1; that share of invocations logs at DEBUG) and `POWERTOOLS_LOG_LEVEL`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { RedactingFormatter } from './log-format';
import { toSink } from './sink';

const loggers = new Map<string, Logger>();

export function loggerFor(serviceName: string): Logger {
  let logger = loggers.get(serviceName);
  if (!logger) {
    logger = toSink(new Logger({ serviceName, logFormatter: new RedactingFormatter() }));
    loggers.set(serviceName, logger);
  }
  return logger;
}

/** The service name of lines written outside any invocation (the local runtime's own, start-up). */
export const PROCESS_SERVICE = process.env.POWERTOOLS_SERVICE_NAME ?? 'market-data';
