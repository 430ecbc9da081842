/**
 * Every failure the app shows, as a sentence that says what happened and what to do next (issue 24 point 3):
 * never a raw answer. The codes are the spec's (api.md Errors); `context` names the few codes whose meaning
 * depends on what was being done (a 404 on confirming a code is "no such code").
 */
import { ApiError } from '../shared/client/http-client';
import { AuthError } from './auth/provider';

const FEATURE_NAMES: Record<string, string> = {
  'prices.live': 'live prices',
  'candles.minute': 'minute candles',
  depth: 'depth data',
  books: 'order books',
  live: 'the live feed',
  watchlist: 'a watchlist',
  alerts: 'alerts',
  boards: 'boards',
  'api.keys': 'API keys',
};

/** The sentence for a failure of an API call, an identity provider call or the network. */
export function explain(err: unknown): string {
  if (err instanceof AuthError) return err.message;
  if (!(err instanceof ApiError)) return 'The service could not be reached: check your connection, then try again.';
  const body = err.body as { error: string; feature?: string; limit?: number };
  switch (body.error) {
    case 'unauthenticated':
      return 'You are signed out: sign in, then try again.';
    case 'forbidden':
      return `Your account does not include ${FEATURE_NAMES[body.feature ?? ''] ?? body.feature ?? 'this feature'}: see your plan on the account page.`;
    case 'bad_origin':
      return 'This page was not opened from the site itself: open the site directly and try again.';
    case 'sessions_only':
      return 'Only a signed-in browser can confirm a code: sign in on the website and confirm it there.';
    case 'unknown_code':
      return 'No such code: check it against the one your desktop app shows and type it again.';
    case 'expired':
      return 'This code has expired: pair again in the desktop app to get a new code, then confirm that one.';
    case 'too_many':
      return `You have reached your limit${body.limit === undefined ? '' : ` of ${body.limit}`}: remove one before adding another.`;
    case 'rate_limited':
      return `Too many requests: wait ${err.retryAfter ?? 60} seconds, then try again.`;
    case 'unavailable':
      return 'The sign-in service is not answering right now: try again in a minute.';
    case 'not_found':
      return 'That was not found: it may have been removed already. Reload the page to see what is there now.';
    case 'bad_request':
      return `That was not accepted${err.body.message ? ` (${err.body.message})` : ''}: correct it and try again.`;
    default:
      return err.status >= 500
        ? 'The service had a problem answering: try again in a minute.'
        : `That was refused (${err.status}): reload the page and try again.`;
  }
}
