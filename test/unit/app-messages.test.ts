/**
 * Issue 24 point 3: every failure the app shows is a sentence that says what to do next, never raw JSON; the
 * pairing code's 404 and 410 read as "no such code: check it" and "expired: pair again"; limits and missing
 * features name the limit and the feature. Also the hash routes' parsing (app/hash.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseHash } from '../../app/hash';
import { explain } from '../../app/messages';
import { ApiError } from '../../shared/client/http-client';

const apiError = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new ApiError(status, body as { error: string }, new Headers(headers));

describe('what the app says when something fails', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['an unknown pairing code', apiError(404, { error: 'unknown_code' }), /^No such code: check it .* type it again\.$/],
    ['an expired pairing code', apiError(410, { error: 'expired' }), /^This code has expired: pair again in the desktop app/],
    ['a limit', apiError(409, { error: 'too_many', limit: 10 }), /limit of 10: remove one before adding another\.$/],
    ['a missing feature', apiError(403, { error: 'forbidden', feature: 'api.keys' }), /does not include API keys: see your plan/],
    ['a signed-out caller', apiError(401, { error: 'unauthenticated' }), /^You are signed out: sign in, then try again\.$/],
    ['a rate limit', apiError(429, { error: 'rate_limited' }, { 'retry-after': '60' }), /wait 60 seconds, then try again\.$/],
    ['an identity provider outage', apiError(503, { error: 'unavailable' }), /try again in a minute\.$/],
    ['a server failure', apiError(500, { error: 'internal' }), /try again in a minute\.$/],
    ['a network failure', new TypeError('Failed to fetch'), /^The service could not be reached: check your connection/],
  ];
  for (const [what, err, sentence] of cases) {
    it(`explains ${what} as a sentence with what to do next, never as JSON`, () => {
      const text = explain(err);
      expect(text).toMatch(sentence);
      expect(text).not.toMatch(/[{}]|"error"/);
    });
  }
});

describe('the hash routes', () => {
  it('reads a route path and its query from the hash', () => {
    const at = parseHash('#/devices/confirm?code=ABCD-EFGH');
    expect(at?.path).toBe('/devices/confirm');
    expect(at?.query.get('code')).toBe('ABCD-EFGH');
    expect(parseHash('#/account/')?.path).toBe('/account');
  });

  it('leaves in-page anchors and an empty hash to the page', () => {
    expect(parseHash('#prices')).toBeNull();
    expect(parseHash('')).toBeNull();
  });
});
