/**
 * The one error a port throws when what stands behind it did not answer (issue 25 point 3): the table, a
 * bucket, a queue, the socket gateway or the secret store throttled, failed (5xx), timed out or could not be
 * reached. Each adapter turns its SDK's failures into this at the port (shared/store/dependency-failure.ts
 * `atPort`), so the merge retries it without using up a book's poison budget and the HTTP layer answers it
 * 503 without knowing any SDK's error shapes. Every other failure passes through as it was.
 */

/** What stands behind a port. */
export type Dependency = 'table' | 'bucket' | 'queue' | 'sockets' | 'secrets';

export class DependencyFailure extends Error {
  constructor(
    readonly dependency: Dependency,
    /** The adapter's own error (an SDK exception, a network error), kept for the logs. */
    cause: unknown,
  ) {
    super(`the ${dependency} did not answer (${describeCause(cause)})`, { cause });
    this.name = 'DependencyFailure';
  }
}

const describeCause = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** True when `err` is a dependency failure, or holds one (a rejected `Promise.all`'s aggregate, an error's cause). */
export function isDependencyFailure(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  if (err instanceof DependencyFailure) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isDependencyFailure(e, depth + 1))) return true;
  return isDependencyFailure((err as { cause?: unknown }).cause, depth + 1);
}
