import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import { DomainError, type ErrorCode } from '../errors';
import { jsonLog } from '../log';
import { ERROR_STATUS } from './status';
import type { HttpResult } from './types';

const gzipAsync = promisify(gzip);

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
  if (err instanceof DomainError)
    return errorResult(
      err.code,
      err.message || undefined,
      err.extra,
      err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(err.retryAfterSeconds) },
    );
  log('unexpected error', err);
  return errorResult('internal', 'internal error');
}

const defaultLog = (msg: string, e: unknown): void => jsonLog('error', msg, { error: e instanceof Error ? e.stack : String(e) });

/** A body in binary form, e.g. a gzip file passed through. */
export function binary(status: number, data: Buffer, headers: Record<string, string>): HttpResult {
  return { statusCode: status, headers, body: data.toString('base64'), isBase64Encoded: true };
}

/** Accept-Encoding allows gzip (an explicit `gzip;q=0` refuses it; `*` counts). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star: boolean | undefined;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const ok = q === undefined || Number(q.slice(2)) > 0;
    if (name.trim() === 'gzip') return ok;
    if (name.trim() === '*') star = ok;
  }
  return star ?? false;
}

/** Adds a header name to `Vary`. */
const varyOn = (headers: Record<string, string | number | boolean> | undefined, name: string): string => {
  const vary = headers?.vary;
  return typeof vary === 'string' && vary ? `${vary}, ${name}` : name;
};

/** A stored JSON file's bytes as the caller accepts them: gzip passed through, or decompressed to text. */
export function storedJson(raw: Buffer, gzipped: boolean, acceptEncoding: string | undefined, headers: Record<string, string>): HttpResult {
  const h = { 'content-type': 'application/json; charset=utf-8', ...headers, vary: varyOn(headers, 'Accept-Encoding') };
  if (gzipped && acceptsGzip(acceptEncoding)) return binary(200, raw, { ...h, 'content-encoding': 'gzip' });
  return { statusCode: 200, headers: h, body: (gzipped ? gunzipSync(raw) : raw).toString('utf8') };
}

/** The gzip of a large answer (level 1: see compressLarge), of its text or of the same text's bytes. */
export const gzipLarge = (body: string | Buffer): Promise<Buffer> => gzipAsync(body, { level: 1 });

/** Answers from this size on go gzip to callers that accept it. */
export const COMPRESS_FROM = 1024 * 1024;

/**
 * A large text answer (history and intraday of a big market run to megabytes) gzip when the caller accepts
 * it: a Lambda answer is at most 6 MB, and answers of numbers shrink about fourfold (base64 gives a third back).
 * Level 1: a 24 MB answer compresses in about 0.2 s (level 5: 0.5 s) for a few percent more bytes.
 */
export async function compressLarge(result: HttpResult, acceptEncoding: string | undefined): Promise<HttpResult> {
  if (result.isBase64Encoded || typeof result.body !== 'string' || result.body.length < COMPRESS_FROM) return result;
  if (result.headers?.['content-encoding']) return result;
  // Already negotiated (a route that fits its answer itself, shared/http/answer-files.ts).
  if (String(result.headers?.vary ?? '').includes('Accept-Encoding')) return result;
  const headers = { ...result.headers, vary: varyOn(result.headers, 'Accept-Encoding') };
  if (!acceptsGzip(acceptEncoding)) return { ...result, headers };
  const data = await gzipLarge(result.body);
  return { ...result, headers: { ...headers, 'content-encoding': 'gzip' }, body: data.toString('base64'), isBase64Encoded: true };
}
