import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Book, type BookEntry, MAX_BOOK_ENTRIES, parseBook, validateBook, viaField } from '../../shared/domain/book';
import { itemKey, petKey } from '../../shared/domain/item-key';
import { DomainError } from '../../shared/errors';

const NOW = 1_717_000_000_000;
const MARKET = 'forever.pvp.horde.us';
const HOUR = 3_600_000;

const body = (over: Record<string, unknown> = {}): Record<string, unknown> => {
  const entries: BookEntry[] = [
    [25, 100, 1, 3, 2],
    [25, 100, 5, 1, 1],
    [itemKey(25, 7), 0, 1, 4, 1],
  ];
  return { market: MARKET, at: NOW - 1000, complete: true, auctions: 4, entries, ...over };
};

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return 'ok';
};

const parse = (value: unknown): string => codeOf(() => parseBook(JSON.stringify(value), NOW));
const withEntries = (entries: unknown[]): string => parse(body({ entries, auctions: entries.reduce((s: number, e) => s + ((e as number[])[4] ?? 0), 0) }));

describe('parseBook envelope', () => {
  it('accepts a valid book and returns its fields', () => {
    const book = parseBook(JSON.stringify(body()), NOW);
    expect(book).toEqual(body());
    expect('via' in book).toBe(false);
  });

  it('accepts a Buffer body', () => {
    expect(parseBook(Buffer.from(JSON.stringify(body())), NOW).auctions).toBe(4);
  });

  it('rejects a non-JSON body as bad_book', () => {
    expect(codeOf(() => parseBook('{"market":', NOW))).toBe('bad_book');
    expect(codeOf(() => parseBook(Buffer.from([0xff, 0xfe]), NOW))).toBe('bad_book');
  });

  it('rejects JSON that is not an object as bad_book', () => {
    expect(parse([])).toBe('bad_book');
    expect(parse(null)).toBe('bad_book');
    expect(parse(42)).toBe('bad_book');
  });

  it('answers bad_market for a missing or unknown market before any other body rule', () => {
    expect(parse(body({ market: undefined }))).toBe('bad_market');
    expect(parse(body({ market: 'forever.pve.horde.us' }))).toBe('bad_market');
    expect(parse(body({ market: 7, at: 'x', entries: 'x' }))).toBe('bad_market');
  });

  it('answers bad_via for a malformed via, checked before the other body fields', () => {
    for (const via of ['', 'a'.repeat(65), 'bad via', 'é', 12, null, ['x']]) expect(parse(body({ via }))).toBe('bad_via');
    expect(parse(body({ via: '', at: 'x' }))).toBe('bad_via');
  });

  it('keeps a well-formed via', () => {
    const via = 'Partner_1.eu:app-2';
    expect(parseBook(JSON.stringify(body({ via })), NOW).via).toBe(via);
    expect(parseBook(JSON.stringify(body({ via: 'a'.repeat(64) })), NOW).via).toHaveLength(64);
  });

  it('exposes the raw via field for the partner check', () => {
    expect(viaField({ via: 'x' })).toBe('x');
    expect(viaField({})).toBeUndefined();
    expect(viaField([1])).toBeUndefined();
    expect(viaField(null)).toBeUndefined();
  });

  it('requires at to be an integer', () => {
    for (const at of [undefined, '1', NOW - 0.5, null, Number.MAX_SAFE_INTEGER + 2]) expect(parse(body({ at }))).toBe('bad_book');
  });

  it('accepts at on both edges of the clock window, inclusive', () => {
    expect(parse(body({ at: NOW - 24 * HOUR }))).toBe('ok');
    expect(parse(body({ at: NOW + 5 * 60_000 }))).toBe('ok');
  });

  it('rejects at outside the clock window with a message that says so', () => {
    for (const at of [NOW - 24 * HOUR - 1, NOW + 5 * 60_000 + 1]) {
      const err = (() => {
        try {
          parseBook(JSON.stringify(body({ at })), NOW);
        } catch (e) {
          return e as DomainError;
        }
      })();
      expect(err?.code).toBe('bad_book');
      expect(err?.message).toMatch(/clock window/);
    }
  });

  it('requires complete to be a boolean', () => {
    for (const complete of [undefined, 'true', 1, null]) expect(parse(body({ complete }))).toBe('bad_book');
    expect(parse(body({ complete: false }))).toBe('ok');
  });

  it('requires auctions to be an integer >= 0 equal to the sum of n', () => {
    for (const auctions of [undefined, -1, 3.5, '4', 3, 5]) expect(parse(body({ auctions }))).toBe('bad_book');
    expect(parse(body({ auctions: 0, entries: [] }))).toBe('ok');
  });

  it('requires entries to be an array of at most 200000 entries', () => {
    expect(parse(body({ entries: {} }))).toBe('bad_book');
    expect(parse(body({ entries: undefined }))).toBe('bad_book');
    const many = Array.from({ length: MAX_BOOK_ENTRIES + 1 }, (_, i): BookEntry => [1 + i, 1, 1, 1, 1]);
    expect(withEntries(many)).toBe('bad_book');
    expect(withEntries(many.slice(0, MAX_BOOK_ENTRIES))).toBe('ok');
  });
});

describe('parseBook entries', () => {
  it('requires each entry to be an array of exactly 5 numbers', () => {
    expect(withEntries([{ key: 1 }])).toBe('bad_book');
    expect(withEntries([[1, 1, 1, 1]])).toBe('bad_book');
    expect(withEntries([[1, 1, 1, 1, 1, 1]])).toBe('bad_book');
  });

  it('rejects invalid item keys', () => {
    const bad = [0, -1, 1.5, '25', 2_147_483_648, 65_536 * 2_147_483_648 + 5, 4_194_304 * 2_147_483_648 + 1, null];
    for (const key of bad) expect(withEntries([[key, 1, 1, 1, 1]])).toBe('bad_book');
    for (const key of [1, itemKey(5, -3), itemKey(5, 32767), petKey(82800, 4_194_303 - 65_536)]) expect(withEntries([[key, 1, 1, 1, 1]])).toBe('ok');
  });

  it('bounds price to integers 0..2^53-1', () => {
    for (const price of [-1, 0.5, 2 ** 53, '1']) expect(withEntries([[1, price, 1, 1, 1]])).toBe('bad_book');
    for (const price of [0, 2 ** 53 - 1]) expect(withEntries([[1, price, 1, 1, 1]])).toBe('ok');
  });

  it('bounds stack to integers 1..2^31-1', () => {
    for (const stack of [0, 2 ** 31, 1.5]) expect(withEntries([[1, 1, stack, 1, 1]])).toBe('bad_book');
    expect(withEntries([[1, 1, 2 ** 31 - 1, 1, 1]])).toBe('ok');
  });

  it('bounds band to integers 0..4', () => {
    for (const band of [-1, 5, 2.5]) expect(withEntries([[1, 1, 1, band, 1]])).toBe('bad_book');
    for (const band of [0, 4]) expect(withEntries([[1, 1, 1, band, 1]])).toBe('ok');
  });

  it('bounds n to integers 1..2^31-1', () => {
    for (const n of [0, 2 ** 31, 1.5]) expect(withEntries([[1, 1, 1, 1, n]])).toBe('bad_book');
    expect(withEntries([[1, 1, 1, 1, 2 ** 31 - 1]])).toBe('ok');
  });

  it('rejects duplicate entries', () => {
    expect(
      withEntries([
        [1, 5, 1, 1, 1],
        [1, 5, 1, 1, 2],
      ]),
    ).toBe('bad_book');
  });

  it('rejects entries out of (key, price, stack, band) order at every position', () => {
    expect(
      withEntries([
        [2, 1, 1, 1, 1],
        [1, 1, 1, 1, 1],
      ]),
    ).toBe('bad_book');
    expect(
      withEntries([
        [1, 2, 1, 1, 1],
        [1, 1, 1, 1, 1],
      ]),
    ).toBe('bad_book');
    expect(
      withEntries([
        [1, 1, 2, 1, 1],
        [1, 1, 1, 1, 1],
      ]),
    ).toBe('bad_book');
    expect(
      withEntries([
        [1, 1, 1, 2, 1],
        [1, 1, 1, 1, 1],
      ]),
    ).toBe('bad_book');
    expect(
      withEntries([
        [1, 1, 1, 1, 1],
        [1, 1, 1, 2, 1],
        [1, 1, 2, 0, 1],
        [1, 2, 0 + 1, 0, 1],
        [2, 0, 1, 0, 1],
      ]),
    ).toBe('ok');
  });

  it('names the failing entry in the message', () => {
    try {
      parseBook(
        JSON.stringify(
          body({
            entries: [
              [1, 1, 1, 1, 1],
              [1, 1, 1, 9, 1],
            ],
            auctions: 2,
          }),
        ),
        NOW,
      );
      expect.unreachable();
    } catch (err) {
      expect((err as DomainError).message).toContain('entries[1]');
    }
  });
});

const entryArb = fc.tuple(
  fc.constantFrom(1, 2, 77, itemKey(77, 3), itemKey(77, -2), petKey(82800, 1234)),
  fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 }), fc.constant(2 ** 53 - 1)),
  fc.constantFrom(1, 5, 20, 200),
  fc.integer({ min: 0, max: 4 }),
  fc.integer({ min: 1, max: 5 }),
);
const sortedEntries = fc
  .uniqueArray(entryArb, { selector: (e) => `${e[0]}|${e[1]}|${e[2]}|${e[3]}`, maxLength: 40 })
  .map((list) => list.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]) as BookEntry[]);
const bookArb = fc
  .record({
    market: fc.constantFrom('forever.normal.alliance.us', 'forever.rp.horde.us'),
    at: fc.integer({ min: NOW - 24 * HOUR, max: NOW + 300_000 }),
    complete: fc.boolean(),
    entries: sortedEntries,
  })
  .map((b): Book => ({ ...b, auctions: b.entries.reduce((s, e) => s + e[4], 0) }));

describe('parseBook properties', () => {
  it('accepts every valid book unchanged', () => {
    fc.assert(
      fc.property(bookArb, (book) => {
        expect(parseBook(JSON.stringify(book), NOW)).toEqual(book);
      }),
    );
  });

  it('rejects any book with two entries swapped', () => {
    fc.assert(
      fc.property(
        bookArb.filter((b) => b.entries.length >= 2),
        fc.nat(),
        (book, pick) => {
          const i = pick % (book.entries.length - 1);
          const entries = [...book.entries];
          [entries[i], entries[i + 1]] = [entries[i + 1], entries[i]];
          expect(codeOf(() => validateBook({ ...book, entries }, NOW))).toBe('bad_book');
        },
      ),
    );
  });

  it('rejects any book whose auctions is off by one', () => {
    fc.assert(
      fc.property(bookArb, fc.constantFrom(-1, 1), (book, d) => {
        fc.pre(book.auctions + d >= 0);
        expect(codeOf(() => validateBook({ ...book, auctions: book.auctions + d }, NOW))).toBe('bad_book');
      }),
    );
  });
});
