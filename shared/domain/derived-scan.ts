import type { Book } from './book';
import { satAdd, satMul } from './saturate';

/** A scan item `[key, lowest unit buyout, quantity]`. */
export type ScanItem = [key: number, price: number, quantity: number];

/** A scan: what merges into a market. Items ascending by key, prices > 0. */
export interface Scan {
  at: number;
  complete: boolean;
  items: ScanItem[];
}

const MAX_QUANTITY = 2_147_483_647;

/**
 * Spec Order books rule 3: per item with an entry carrying a buyout, `[item, lowest unit buyout, sum of
 * n * stack over its entries (at most 2^31-1)]`. Every entry counts toward quantity, bid-only ones too; an
 * item whose entries are all bid-only gets no scan item (DESIGN: decisions). Relies on the book's order
 * (ascending key, then price), so the first entry with a price > 0 is the lowest buyout.
 */
export function deriveScan(book: Pick<Book, 'at' | 'complete' | 'entries'>): Scan {
  const items: ScanItem[] = [];
  const entries = book.entries;
  let i = 0;
  while (i < entries.length) {
    const key = entries[i][0];
    let low = 0;
    let quantity = 0;
    for (; i < entries.length && entries[i][0] === key; i++) {
      const e = entries[i];
      if (low === 0 && e[1] > 0) low = e[1];
      // n * stack reaches 2^62: saturating first keeps the capped sum exact.
      quantity = Math.min(MAX_QUANTITY, satAdd(quantity, satMul(e[2], e[4])));
    }
    if (low > 0) items.push([key, low, quantity]);
  }
  return { at: book.at, complete: book.complete, items };
}
