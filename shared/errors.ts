/**
 * Domain errors: a broken rule named by the spec's error code, with the fields the error body carries. They
 * know nothing of HTTP: the one status map is shared/http/status.ts, and only the HTTP layer reads it.
 */

/** A request that breaks a rule of its own shape. */
export type ValidationCode = 'bad_request' | 'bad_market' | 'bad_item' | 'bad_query' | 'bad_build' | 'bad_book' | 'bad_via';
/** No valid credential. */
export type UnauthenticatedCode = 'unauthenticated';
/** A credential that may not do this (`edge_only`, not in the spec: a request that did not pass CloudFront). */
export type ForbiddenCode = 'forbidden' | 'devices_only' | 'sessions_only' | 'bad_origin' | 'not_partner' | 'edge_only';
/** Nothing there, or nothing there any more (`expired`). */
export type NotFoundCode = 'not_found' | 'unknown_code' | 'unknown_alert' | 'unknown_book' | 'expired';
/** The stored state refuses it now (`too_soon`, `too_many`). */
export type ConflictCode = 'too_soon' | 'too_many';
/** A size or rate limit. */
export type LimitCode = 'rate_limited' | 'too_large';
/** A dependency or a part of the deployment that does not answer. */
export type UnavailableCode = 'unavailable' | 'storage_failed' | 'no_storage' | 'push_unconfigured';
/** Codes of the protocol itself, answered by the HTTP layer and the live upgrade. */
export type ProtocolCode = 'method_not_allowed' | 'upgrade_required';

export type ErrorCode =
  | ValidationCode
  | UnauthenticatedCode
  | ForbiddenCode
  | NotFoundCode
  | ConflictCode
  | LimitCode
  | UnavailableCode
  | ProtocolCode
  | 'internal';

/** A rule broken by the caller or a dependency, named by the spec's error code. */
export class DomainError extends Error {
  /** Extra fields of the error body, e.g. `{feature}` for `forbidden` or `{limit}` for `too_many`. */
  readonly extra: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    extra: Record<string, unknown> = {},
    /** When the caller may try again (rate limits). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message ?? '');
    this.name = 'DomainError';
    this.extra = extra;
  }
}

export class ValidationError extends DomainError {
  constructor(code: ValidationCode, message?: string, extra?: Record<string, unknown>) {
    super(code, message, extra);
    this.name = 'ValidationError';
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message?: string) {
    super('unauthenticated', message);
    this.name = 'UnauthenticatedError';
  }
}

export class ForbiddenError extends DomainError {
  constructor(code: ForbiddenCode, message?: string, extra?: Record<string, unknown>) {
    super(code, message, extra);
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends DomainError {
  constructor(code: NotFoundCode, message?: string, extra?: Record<string, unknown>) {
    super(code, message, extra);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends DomainError {
  constructor(code: ConflictCode, message?: string, extra?: Record<string, unknown>) {
    super(code, message, extra);
    this.name = 'ConflictError';
  }
}

export class LimitError extends DomainError {
  constructor(code: LimitCode, message?: string, extra?: Record<string, unknown>, retryAfterSeconds?: number) {
    super(code, message, extra, retryAfterSeconds);
    this.name = 'LimitError';
  }
}

export class UnavailableError extends DomainError {
  constructor(code: UnavailableCode, message?: string, extra?: Record<string, unknown>) {
    super(code, message, extra);
    this.name = 'UnavailableError';
  }
}

/** `forbidden`, naming the feature the caller lacks. */
export const forbidden = (feature: string): ForbiddenError => new ForbiddenError('forbidden', `needs the ${feature} feature`, { feature });
