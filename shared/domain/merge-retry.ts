/**
 * How failed merges are retried (docs/failure-model.md). A book answered 200 must merge once its
 * dependencies answer again, so a failure caused by S3 or DynamoDB only delays it; a failure of the book's
 * own making counts against a small budget, after which the book is set aside for an operator.
 */

/** After the first failed receive the retry is immediate (a one-off crash costs nothing). */
const FIRST_BACKOFF_SECONDS = 30;
/** The longest wait between receives: a merge follows an outage's end within this. */
export const MERGE_BACKOFF_CAP_SECONDS = 900;
/** Failures that were not a dependency's before a book is set aside (never redriven). */
export const MERGE_FAILURE_BUDGET = 3;
/** Returns from a dead-letter queue before a book that keeps landing there is set aside too. */
export const MERGE_REDRIVE_LIMIT = 3;

/**
 * Seconds until a message that failed on its `receiveCount`-th receive is received again: 0 after the
 * first, then 30 s doubling (60, 120, 240, 480) up to 15 minutes.
 */
export function mergeRetryDelaySeconds(receiveCount: number): number {
  if (!(receiveCount > 1)) return 0;
  return Math.min(MERGE_BACKOFF_CAP_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** Math.min(receiveCount - 2, 16));
}

/** Why a merge was set aside (message attribute `reason` in the rejected queue). */
export type RejectReason = 'data' | 'dead-lettered';
