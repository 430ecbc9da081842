import { describe, expect, it } from 'vitest';
import { MERGE_BACKOFF_CAP_SECONDS, mergeRetryDelaySeconds } from '../../shared/domain/merge-retry';
import { describeFailure } from '../../shared/market/merge-batch';

describe('merge retry rules', () => {
  it('retries at once after the first failed receive, then waits 30 s doubling up to 15 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100, 1000].map(mergeRetryDelaySeconds)).toEqual([0, 30, 60, 120, 240, 480, 900, 900, 900, 900]);
    expect(MERGE_BACKOFF_CAP_SECONDS).toBe(900);
    expect(mergeRetryDelaySeconds(0)).toBe(0);
    expect(mergeRetryDelaySeconds(Number.NaN)).toBe(0);
  });

  it('keeps a capability out of a logged error, whatever surrounds it', () => {
    const cap = 'fgPru8PbN6OjgjvSwPzehQ';
    const text = describeFailure(new Error(`book file missing: books/v1/forever.pvp.alliance.us/1793575801000-${cap}.json.gz (${cap})`));
    expect(text).not.toContain(cap);
    expect(text).toBe('Error: book file missing: books/v1/forever.pvp.alliance.us/1793575801000-<cap>.json.gz (<cap>)');
    // Longer tokens are not caps and stay.
    expect(describeFailure(new Error('x'.repeat(30)))).toBe(`Error: ${'x'.repeat(30)}`);
  });
});
