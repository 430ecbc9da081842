/**
 * The HTTP functions' plumbing as middy middlewares (issue 12, point 4), used by shared/http/handler.ts's
 * chain: the one mapping from domain errors to the spec's answers, and gzip for large answers. Middy runs
 * `after` in reverse order of `use`, so the chain lists the last step first (see the chain's comment).
 */
import type { MiddlewareObj } from '@middy/core';
import { DomainError, type UnavailableCode, UnavailableError } from '../errors';
import type { Log } from '../log';
import { isDependencyFailure } from '../ports/dependency-failure';
import { compressLarge, fromError } from './respond';
import type { HttpEvent, HttpResult } from './types';

/** A request header by its lower-case name (API Gateway v2 sends them lower-case; the local gateway may not). */
export function headerOf(event: HttpEvent, name: string): string | undefined {
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === name && v !== undefined) return v;
  return undefined;
}

export interface HttpErrorsOptions {
  /** The 503 code when the table or bucket does not answer (the route's own, default `unavailable`). */
  outage(event: HttpEvent): Extract<UnavailableCode, 'unavailable' | 'storage_failed'>;
  log: Log;
  /** Fields every answer of the request carries, error or not (the RateLimit fields). */
  decorate?(event: HttpEvent, result: HttpResult): HttpResult;
}

/**
 * Middy: anything thrown becomes the spec's answer. Domain errors keep their code and status (status.ts);
 * a table or bucket that does not answer is a 503 the caller may retry, not a 500 (docs/failure-model.md);
 * anything else is logged and answered 500 `internal`.
 */
export function httpErrors(opts: HttpErrorsOptions): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    onError: async (request) => {
      let err: unknown = request.error;
      if (!(err instanceof DomainError) && isDependencyFailure(err)) {
        opts.log('warn', 'a dependency did not answer', { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
        err = new UnavailableError(opts.outage(request.event), 'a storage service is unavailable; try again');
      }
      const mapped = fromError(err, (msg, e) => opts.log('error', msg, { error: e instanceof Error ? e.stack : String(e) }));
      request.response = opts.decorate ? opts.decorate(request.event, mapped) : mapped;
    },
  };
}

/** Middy: a large text answer goes gzip to a caller that accepts it (respond.ts `compressLarge`). */
export function gzipLarge(): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    after: async (request) => {
      if (request.response) request.response = await compressLarge(request.response, headerOf(request.event, 'accept-encoding'));
    },
  };
}
