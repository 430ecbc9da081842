/**
 * The book body is checked by shared/domain/book.ts in one allocation-free pass (200000 entries), and
 * described for /openapi.full.json by BookBody (shared/api/book-upload.schemas.ts). A property test holds the
 * two to the same verdict on bodies near the rules' edges, so the document cannot drift from the check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookBody } from '../../shared/api/book-upload.schemas';
import { validateBook } from '../../shared/domain/book';

const NOW = Date.UTC(2026, 10, 2, 12);
const KEY = 2147483648;

/** Mostly valid values, sometimes one just past a rule. */
const pick = <T>(valid: T[], invalid: T[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 12 }, { arbitrary: fc.constantFrom(...invalid), weight: 1 });
const entry = fc.tuple(
  pick<unknown>([1, 25, 25 + KEY * 2, 25 + KEY * 65537], [0, -1, 1.5, KEY * 65536 + 3, '25']),
  pick<unknown>([0, 1, 500, 2 ** 53 - 1], [-1, 2 ** 53, 1.5]),
  pick<unknown>([1, 10, 2 ** 31 - 1], [0, 2 ** 31]),
  pick<unknown>([0, 1, 4], [5, -1]),
  pick<unknown>([1, 2, 2 ** 31 - 1], [0]),
);
const lexical = (a: unknown[], b: unknown[]): number => {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1;
  return 0;
};
const body = fc
  .record({
    market: pick(['forever.normal.alliance.us', 'forever.rp.horde.us'], ['forever.normal.alliance.eu']),
    at: pick<unknown>([NOW, NOW - 60_000], [1.5, '1']),
    complete: pick<unknown>([true, false], [1]),
    entries: fc.array(entry, { maxLength: 4 }),
    sort: pick([true], [false]),
    delta: pick([0], [1, -1]),
    via: pick<unknown>([undefined, 'partner.app:1'], ['', 'bad via', 5]),
  })
  .map(({ sort, delta, via, entries, ...b }) => {
    const es = sort ? [...entries].sort(lexical) : entries;
    const sum = es.reduce((s, e) => s + (typeof e[4] === 'number' ? e[4] : 0), 0);
    return { ...b, entries: es, auctions: sum + delta, ...(via === undefined ? {} : { via }) };
  });

const verdict = (b: unknown): boolean => {
  try {
    validateBook(b, NOW);
    return true;
  } catch {
    return false;
  }
};

describe('BookBody and the book check agree', () => {
  it('accept and refuse the same bodies', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (b) => {
        const ok = verdict(b);
        accepted += ok ? 1 : 0;
        expect(BookBody.safeParse(b).success, JSON.stringify(b)).toBe(ok);
      }),
      { numRuns: 3000 },
    );
    // Both verdicts are exercised, not only refusals.
    expect(accepted).toBeGreaterThan(50);
  });

  it('both accept a sorted valid book and refuse a duplicate entry', () => {
    const ok = {
      market: 'forever.pvp.alliance.us',
      at: NOW,
      complete: true,
      auctions: 3,
      entries: [
        [25, 0, 5, 3, 1],
        [25, 500, 10, 1, 2],
      ],
    };
    expect([BookBody.safeParse(ok).success, verdict(ok)]).toEqual([true, true]);
    const dup = { ...ok, auctions: 4, entries: [...ok.entries, [25, 500, 10, 1, 1]] };
    expect([BookBody.safeParse(dup).success, verdict(dup)]).toEqual([false, false]);
  });
});
