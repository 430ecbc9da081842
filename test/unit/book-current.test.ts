import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../shared/clock';
import { bookTransition, replacesCurrentBook } from '../../shared/domain/book-current';

const T = 1_717_000_000_000;

describe('replacesCurrentBook', () => {
  it('makes the first complete book current', () => {
    expect(replacesCurrentBook(null, { at: T, complete: true })).toBe(true);
  });

  it('replaces the current book with a newer complete book', () => {
    expect(replacesCurrentBook({ at: T, complete: true }, { at: T + 1, complete: true })).toBe(true);
  });

  it('keeps the current book for a late or equally old book', () => {
    expect(replacesCurrentBook({ at: T, complete: true }, { at: T - 1, complete: true })).toBe(false);
    expect(replacesCurrentBook({ at: T, complete: true }, { at: T, complete: true })).toBe(false);
  });

  it('never makes an incomplete book current', () => {
    expect(replacesCurrentBook(null, { at: T, complete: false })).toBe(false);
    expect(replacesCurrentBook({ at: T, complete: true }, { at: T + 1, complete: false })).toBe(false);
  });
});

describe('bookTransition', () => {
  it('estimates volume when the replaced book is at most 6 hours older', () => {
    expect(bookTransition({ at: T, complete: true }, { at: T + 6 * HOUR_MS, complete: true })).toEqual({ replaces: true, volume: true });
  });

  it('replaces without volume when the current book is more than 6 hours older', () => {
    expect(bookTransition({ at: T, complete: true }, { at: T + 6 * HOUR_MS + 1, complete: true })).toEqual({ replaces: true, volume: false });
  });

  it('makes no volume for the first book or a book that does not replace', () => {
    expect(bookTransition(null, { at: T, complete: true })).toEqual({ replaces: true, volume: false });
    expect(bookTransition({ at: T, complete: true }, { at: T + 1, complete: false })).toEqual({ replaces: false, volume: false });
  });
});
