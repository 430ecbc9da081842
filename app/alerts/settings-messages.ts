/**
 * The sentences of failures on the watchlist, alerts, boards and push pages (issue 24 points 5, 6): what a
 * limit counts (`409 too_many` carries the number, the page knows what it counts), the codes only these routes
 * answer (`unknown_alert`, `too_large`, `push_unconfigured`), and what the service's 400 message asks for.
 * Everything else is the app's common sentence (app/messages.ts). Never raw JSON.
 */
import { ApiError } from '../../shared/client/http-client';
import { explain } from '../messages';

/** What a page writes: names the limit's unit and what to do about it. */
export type Writing = 'watchlist' | 'alerts' | 'boards' | 'push';

const LIMITS: Record<Writing, (limit: number | undefined) => string> = {
  watchlist: (n) => `Your watchlist is full${n === undefined ? '' : ` (${n} items on your plan)`}: remove an item before adding another.`,
  alerts: (n) => `You have reached your limit${n === undefined ? '' : ` of ${n} alerts`}: delete an alert you no longer need, then create this one.`,
  boards: (n) => `Too many boards or screens${n === undefined ? '' : ` (at most ${n})`}: delete one before adding another.`,
  push: () => 'This account has too many notification subscriptions: remove one on another browser, then try again.',
};

/** The sentence for a failed write of `what`. */
export function explainWrite(err: unknown, what: Writing): string {
  if (!(err instanceof ApiError)) return explain(err);
  const body = err.body as { error: string; limit?: number; message?: string };
  switch (body.error) {
    case 'too_many':
      return LIMITS[what](body.limit);
    case 'unknown_alert':
      return 'This alert no longer exists (it was deleted, perhaps in another tab): reload the page to see your alerts.';
    case 'too_large':
      return 'Your boards are too large to store (at most 64 KB): remove widgets or boards, then save again.';
    case 'push_unconfigured':
      return 'Notifications are not set up on this deployment: alerts still reach this page while it is open.';
    case 'bad_request':
      return body.message
        ? `That was not accepted: ${body.message.replace(/\.$/, '')}. Correct it and try again.`
        : 'That was not accepted: correct the form and try again.';
    default:
      return explain(err);
  }
}

/** Whether the caller's features include `feature` (writes without it are 403: say so before they try). */
export const lacks = (features: readonly string[], feature: string): boolean => !features.includes(feature);
