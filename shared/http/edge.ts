/**
 * Only CloudFront reaches the APIs (issue 11, point 2). CloudFront adds an origin-verify header whose value
 * is a generated secret; requests without a current value are refused before any other work (no credential
 * lookup, no rate-limit write). The secret is `{current, previous?}` so it can rotate: functions accept both
 * while the distribution moves to the new value (docs/security.md).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ORIGIN_SECRET_MIN_LENGTH, originSecretValues } from '../domain/origin-secret';
import { ForbiddenError, UnavailableError } from '../errors';
import { keepOutOfLogs } from '../log';
import type { Services } from '../services';

export { ORIGIN_SECRET_MIN_LENGTH, originSecretValues };

/** The header CloudFront adds to every origin request (a custom origin header; a viewer's own is overwritten). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/** How long a function keeps the values it read; a rotation waits at least this long before moving CloudFront. */
export const ORIGIN_SECRET_REFRESH_MS = 5 * 60_000;

const digest = (v: string): Buffer => createHash('sha256').update(v, 'utf8').digest();

/** Whether a request's origin-verify header holds one of the accepted values (compared in constant time). */
export function fromEdge(headers: Record<string, string | undefined> | null | undefined, accepted: readonly string[]): boolean {
  let sent: string | undefined;
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === ORIGIN_VERIFY_HEADER) sent = v;
  if (!sent) return false;
  const mine = digest(sent);
  let ok = false;
  for (const value of accepted) if (value.length >= ORIGIN_SECRET_MIN_LENGTH && timingSafeEqual(mine, digest(value))) ok = true;
  return ok;
}

let cached: { arn: string; values: string[]; readAt: number } | undefined;

/**
 * The values this function accepts now: in AWS the stage's origin secret, re-read every five minutes so a
 * rotation reaches warm functions; locally the value the runtime generated. A failed re-read keeps the last
 * values; with none at all the request is refused as unavailable (503), never let through.
 */
export async function acceptedOriginValues(
  svc: Pick<Services, 'config' | 'clock' | 'log' | 'secrets'>,
  read: (arn: string) => Promise<string | undefined> = (arn) => svc.secrets.read(arn),
): Promise<readonly string[]> {
  const arn = svc.config.secretArns.origin;
  if (!arn) return svc.config.originVerify;
  const now = svc.clock.now();
  if (cached?.arn === arn && now - cached.readAt < ORIGIN_SECRET_REFRESH_MS) return cached.values;
  try {
    const values = originSecretValues(await read(arn));
    // A rotation's new value reaches the configuration's registration (secret-env.ts) only at the next cold start.
    keepOutOfLogs(...values);
    cached = { arn, values, readAt: now };
    return values;
  } catch (err) {
    svc.log('warn', 'origin secret unreadable', { error: err instanceof Error ? err.message : String(err) });
    if (cached?.arn === arn) return cached.values;
    throw new UnavailableError('unavailable', 'try again shortly');
  }
}

/** 403 `edge_only` unless the request came through the stage's CloudFront distribution. */
export async function requireEdge(
  svc: Pick<Services, 'config' | 'clock' | 'log' | 'secrets'>,
  headers: Record<string, string | undefined> | null | undefined,
): Promise<void> {
  if (!fromEdge(headers, await acceptedOriginValues(svc))) throw new ForbiddenError('edge_only', 'use the public host');
}

/** Forgets the values read from Secrets Manager (tests). */
export const resetOriginSecretCache = (): void => {
  cached = undefined;
};
