/**
 * The watchlist, alerts, boards and push pages' refusals as sentences (issue 24 point 5): a limit says what it
 * counts and what to remove (409 `too_many` with its `limit`), a missing feature names it (403 `forbidden`),
 * a validation error carries the service's message, and no sentence is an answer's JSON.
 */
import { describe, expect, it } from 'vitest';
import { explainWrite } from '../../app/alerts/settings-messages';
import { ApiError } from '../../shared/client/http-client';

const refused = (status: number, body: Record<string, unknown>) => new ApiError(status, body as { error: string }, new Headers());

describe('refusals of settings writes', () => {
  it('tells each limit with its number and what to do next', () => {
    expect(explainWrite(refused(409, { error: 'too_many', limit: 10 }), 'alerts')).toBe(
      'You have reached your limit of 10 alerts: delete an alert you no longer need, then create this one.',
    );
    expect(explainWrite(refused(409, { error: 'too_many', limit: 50 }), 'watchlist')).toBe(
      'Your watchlist is full (50 items on your plan): remove an item before adding another.',
    );
    expect(explainWrite(refused(409, { error: 'too_many', limit: 20 }), 'boards')).toBe(
      'Too many boards or screens (at most 20): delete one before adding another.',
    );
  });

  it('names the missing feature', () => {
    expect(explainWrite(refused(403, { error: 'forbidden', feature: 'alerts' }), 'alerts')).toBe(
      'Your account does not include alerts: see your plan on the account page.',
    );
    expect(explainWrite(refused(403, { error: 'forbidden', feature: 'boards' }), 'boards')).toBe(
      'Your account does not include boards: see your plan on the account page.',
    );
  });

  it('says what the service did not accept, and the codes only these routes answer', () => {
    expect(explainWrite(refused(400, { error: 'bad_request', message: 'value of a rise alert must be in 1..1000.' }), 'alerts')).toBe(
      'That was not accepted: value of a rise alert must be in 1..1000. Correct it and try again.',
    );
    expect(explainWrite(refused(404, { error: 'unknown_alert' }), 'alerts')).toMatch(/^This alert no longer exists .*reload the page/);
    expect(explainWrite(refused(413, { error: 'too_large' }), 'boards')).toMatch(/^Your boards are too large to store/);
    expect(explainWrite(refused(503, { error: 'push_unconfigured' }), 'push')).toMatch(/^Notifications are not set up on this deployment/);
  });

  it('never shows JSON', () => {
    for (const body of [{ error: 'too_many', limit: 3 }, { error: 'weird', detail: { x: 1 } }, { error: 'bad_request' }])
      expect(explainWrite(refused(400, body), 'alerts')).not.toMatch(/[{}"]/);
  });
});
