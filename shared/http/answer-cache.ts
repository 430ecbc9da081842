/**
 * Spec Freshness: "The first answer of the hour is reused until the hour ends (per path, query and caller
 * restriction)". Kept in the table (not in a function's memory) so every Lambda reuses the same answer; the
 * body is reused as it was (its `now` included) while `Cache-Control` is computed per request (DESIGN).
 * An answer is keyed by what its route reads, normalized (item key as a number, the window a `from` resolves
 * to), not by the request's text: unknown, reordered or differently written parameters find the same stored
 * answer instead of computing and storing another multi-megabyte one each (anyone could otherwise mint them).
 * Stored through the market port's answer store (shared/store/dynamo-answers.ts), until the hour ends.
 */
import { createHash } from 'node:crypto';
import { hourOf, secondsToNextHour } from '../clock';
import { bodyText, JsonText } from '../market/json-bytes';
import type { Services } from '../services';
import { NO_STORE } from './respond';
import type { HttpResult } from './types';

/** Built by the market reads (shared/market/json-bytes.ts); exported here too, where the answers are made. */
export { bodyText, JsonText };

const JSON_TYPE = 'application/json; charset=utf-8';

/** What one reused answer is keyed by: the route, the normalized values it reads, and the caller restriction (tier). */
export interface AnswerKey {
  /** The route's own name (not the request path, which has many spellings). */
  route: string;
  /** Everything the answer depends on besides the hour and the tier, parsed and resolved (e.g. the effective window). */
  params: ReadonlyArray<string | number | null>;
  restriction: string;
}

/** Spec Freshness headers of an hourly answer, computed per request. */
export const hourlyHeaders = (now: number): Record<string, string> => ({
  'content-type': JSON_TYPE,
  'cache-control': `public, max-age=${secondsToNextHour(now)}`,
  vary: 'Authorization, Cookie',
});

/** Spec Freshness: live answers are private and never cached. */
export const liveHeaders = (): Record<string, string> => ({ 'content-type': JSON_TYPE, 'cache-control': NO_STORE });

/** The cache key of an answer in the hour of `now` (the hour is part of it, so a new hour never sees an old answer). */
export function answerHash(key: AnswerKey, now: number): string {
  return createHash('sha256')
    .update(JSON.stringify([2, hourOf(now), key.route, key.params, key.restriction]))
    .digest('base64url');
}

/**
 * The hour's first answer for `key`, or `compute()`'s (stored for the rest of the hour). `compute` returns the
 * answer body; only successful answers are kept.
 */
export async function reuseHourly(svc: Pick<Services, 'clock' | 'market' | 'log'>, key: AnswerKey, compute: () => Promise<unknown>): Promise<HttpResult> {
  const now = svc.clock.now();
  const hash = answerHash(key, now);
  const stored = await svc.market.answers.read(hash, now);
  if (stored !== null) return { statusCode: 200, headers: hourlyHeaders(now), body: stored };
  const body = bodyText(await compute());
  try {
    await svc.market.answers.write(hash, body, now);
  } catch (err) {
    // A lost cache write only costs the next caller a recomputation.
    svc.log('warn', 'hourly answer not stored', { error: err instanceof Error ? err.message : String(err) });
  }
  return { statusCode: 200, headers: hourlyHeaders(now), body };
}
