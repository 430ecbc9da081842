import { ERROR_STATUS, type ErrorCode, ServiceError } from '../errors';
import type { HttpResult } from './types';

export const NO_STORE = 'private, no-store';

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

export const ok = (body: unknown, headers: Record<string, string> = {}): HttpResult => json(200, body, { 'cache-control': NO_STORE, ...headers });

/** The error body `{error, message?, ...extra}` with the code's status. */
export function errorResult(code: ErrorCode, message?: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): HttpResult {
  const body: Record<string, unknown> = { error: code };
  if (message) body.message = message;
  Object.assign(body, extra);
  return json(ERROR_STATUS[code], body, { 'cache-control': NO_STORE, ...headers });
}

/** Maps anything thrown to an answer: spec errors keep their code, the rest is logged and answered 500. */
export function fromError(err: unknown, log: (msg: string, e: unknown) => void = defaultLog): HttpResult {
  if (err instanceof ServiceError) return errorResult(err.code, err.message || undefined, err.extra, err.headers);
  log('unexpected error', err);
  return errorResult('internal', 'internal error');
}

const defaultLog = (msg: string, e: unknown): void => {
  console.error(msg, e instanceof Error ? e.stack : e);
};

/** A body in binary form, e.g. a gzip file passed through. */
export function binary(status: number, data: Buffer, headers: Record<string, string>): HttpResult {
  return { statusCode: status, headers, body: data.toString('base64'), isBase64Encoded: true };
}
