/**
 * Middy: counts each HTTP answer by status class (`answers_2xx` ... `answers_5xx`) and, in the upload
 * function, each upload accepted or refused by its error code. Placed before the error mapping in the chain,
 * so it sees the answer an error was mapped to (middy runs `after` / `onError` in reverse order).
 */
import type { MiddlewareObj } from '@middy/core';
import { metric } from '../telemetry/function-telemetry';
import { answersMetric, METRIC } from '../telemetry/metric-names';
import type { HttpEvent, HttpResult } from './types';

/** The error code of an error answer (`{error: code}`), for the refused-uploads dimension. */
function errorCode(result: HttpResult): string {
  if (result.isBase64Encoded || typeof result.body !== 'string') return 'unknown';
  try {
    const code = (JSON.parse(result.body) as { error?: unknown }).error;
    return typeof code === 'string' ? code : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function countAnswers(fn: string): MiddlewareObj<HttpEvent, HttpResult> {
  const count = (result: HttpResult | undefined | null) => {
    const status = result?.statusCode ?? 500;
    metric(answersMetric(status), 1);
    if (fn !== 'upload') return;
    if (status < 400) metric(METRIC.uploadsAccepted, 1);
    else metric(METRIC.uploadsRefused, 1, { code: result ? errorCode(result) : 'internal' });
  };
  return {
    after: async (request) => count(request.response),
    onError: async (request) => count(request.response),
  };
}
