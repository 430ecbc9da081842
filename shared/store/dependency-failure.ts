/**
 * The one line between "a dependency did not answer" (S3, DynamoDB or SQS answering 5xx or throttling,
 * network errors, timeouts) and every other failure, drawn on the SDK's error shapes, and where the adapters
 * apply it: `atPort` turns the former into the ports' one error (shared/ports/dependency-failure.ts), so code
 * above the ports never reads an SDK error. Merges retry it without using up a book's poison budget and the
 * HTTP layer answers it 503; anything else is the work's own failure and passes through unchanged.
 */
import { aroundPort } from '../ports/around-port';
import { type Dependency, DependencyFailure } from '../ports/dependency-failure';

/** Throttling codes across AWS services (the SDK's own list, plus S3's `SlowDown`). */
const THROTTLING = new Set([
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);

/** Timeouts and "try again" answers that some services send with a 4xx status. */
const TRANSIENT = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ServiceUnavailable', 'InternalError', 'InternalFailure']);

/** Node's network failures (socket and DNS). */
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: { throttling?: unknown };
  cause?: unknown;
}

/**
 * True when `err` (or what it wraps) says a dependency is unavailable rather than that the work is wrong: an
 * SDK or network error of that kind, or the ports' DependencyFailure made of one.
 */
export function isDependencyFailure(err: unknown): boolean {
  return classify(err, 0);
}

function classify(err: unknown, depth: number): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  if (err instanceof DependencyFailure) return true;
  if (err instanceof AggregateError && err.errors.some((e) => classify(e, depth + 1))) return true;
  const e = err as ErrorShape;
  if (e.$fault === 'server') return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (e.$retryable?.throttling === true) return true;
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.code === 'string' ? e.code : '';
  if (THROTTLING.has(name) || TRANSIENT.has(name) || THROTTLING.has(code)) return true;
  if (NETWORK.has(code) || NETWORK.has(name)) return true;
  return classify(e.cause, depth + 1);
}

/**
 * The port `port` as its callers see it: every method (those of its parts too, e.g. `market.pages.meta`)
 * rejects with one `DependencyFailure` where the adapter's own call failed for want of an answer, and with the
 * adapter's error unchanged otherwise. Methods run on the adapter itself, so its inner calls and retries still
 * see the SDK's errors.
 */
export function atPort<T extends object>(dependency: Dependency, port: T): T {
  const translate = (err: unknown): unknown => (!(err instanceof DependencyFailure) && classify(err, 0) ? new DependencyFailure(dependency, err) : err);
  return aroundPort(port, (call) => {
    try {
      const out = call();
      return out instanceof Promise
        ? out.catch((err: unknown) => {
            throw translate(err);
          })
        : out;
    } catch (err) {
      throw translate(err);
    }
  });
}
