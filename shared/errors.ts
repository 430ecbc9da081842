/**
 * The spec's error codes and their statuses, in one place. Domain code throws `ServiceError` with a code;
 * only the HTTP layer turns the code into a status (see shared/http/respond.ts).
 */
export const ERROR_STATUS = {
  bad_request: 400,
  bad_market: 400,
  bad_item: 400,
  bad_query: 400,
  bad_build: 400,
  bad_book: 400,
  bad_via: 400,
  unauthenticated: 401,
  forbidden: 403,
  devices_only: 403,
  sessions_only: 403,
  bad_origin: 403,
  not_partner: 403,
  /** Not in the spec: a request that reached an origin without passing CloudFront (issue 11). */
  edge_only: 403,
  not_found: 404,
  unknown_code: 404,
  unknown_alert: 404,
  unknown_book: 404,
  method_not_allowed: 405,
  too_soon: 409,
  too_many: 409,
  expired: 410,
  too_large: 413,
  upgrade_required: 426,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  storage_failed: 503,
  no_storage: 503,
  push_unconfigured: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A rule broken by the caller or a dependency, named by the spec's error code. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  /** Extra fields of the error body, e.g. `{feature}` for 403 forbidden or `{limit}` for 409 too_many. */
  readonly extra: Record<string, unknown>;
  /** Extra response headers, e.g. `Retry-After` for 429. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message ?? code);
    this.name = 'ServiceError';
    this.code = code;
    this.extra = extra;
    this.headers = headers;
    if (message === undefined) this.message = '';
  }
}

export const fail = (code: ErrorCode, message?: string, extra?: Record<string, unknown>): never => {
  throw new ServiceError(code, message, extra);
};

export const forbidden = (feature: string): ServiceError => new ServiceError('forbidden', `needs the ${feature} feature`, { feature });
