import { volumeApplies } from './volume-estimate';

/** What the market keeps about its current order book. */
export interface BookHead {
  at: number;
  complete: boolean;
}

/** What a merged book does to the market's current book. */
export interface BookTransition {
  /** The book becomes the market's current book. */
  replaces: boolean;
  /** Volume estimates are made against the replaced book (it was at most 6 hours older). */
  volume: boolean;
}

/**
 * Spec Order books rule 2: a complete book newer than the current book replaces it; a late or incomplete book
 * is only a snapshot and a scan. With no current book yet, any complete book becomes current.
 */
export function replacesCurrentBook(current: BookHead | null, book: BookHead): boolean {
  return book.complete && (current === null || book.at > current.at);
}

/** Spec Order books rules 2 and 4 together: whether the book replaces the current one, and whether it yields volume. */
export function bookTransition(current: BookHead | null, book: BookHead): BookTransition {
  const replaces = replacesCurrentBook(current, book);
  return { replaces, volume: replaces && current !== null && volumeApplies(current.at, book.at) };
}
