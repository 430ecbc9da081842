/**
 * The one map from the spec's error codes to HTTP statuses. Only the HTTP layer (shared/http/, the pages that
 * render errors, the local gateway) reads it; the domain and the ports throw codes (shared/errors.ts).
 */
import type { ErrorCode } from '../errors';

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
} as const satisfies Record<ErrorCode, number>;

/** The status of a code. */
export const statusOf = (code: ErrorCode): number => ERROR_STATUS[code];
