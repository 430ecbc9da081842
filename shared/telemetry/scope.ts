/**
 * The function an invocation runs in, with its logger and metrics. In AWS each process hosts one function;
 * the local runtime hosts every function in one process, so log lines and metrics find theirs here rather
 * than in a module global (shared/telemetry/function-telemetry.ts opens the scope around each invocation).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';

export interface Scope {
  fn: string;
  logger: Logger;
  metrics: Metrics;
  /**
   * The invocation's own request id and cold-start flag. Powertools keeps the Lambda context on the logger
   * instance, which concurrent invocations of one function share in the local runtime's single process; the
   * formatter takes these first, so each line names its own invocation (in AWS both agree).
   */
  requestId?: string;
  coldStart?: boolean;
}

export const invocationScope = new AsyncLocalStorage<Scope>();
