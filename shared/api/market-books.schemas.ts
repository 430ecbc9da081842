/** Schemas of the book and snapshot file reads (spec api.md Market reads: item book, books list, book file, snapshot). */
import * as z from 'zod';
import { IntText, ItemKey, int, Market, Ms } from './common.schemas';
import type { DocsOf } from './route-doc';

/** `?from&to`: Unix ms, defaults the last 30 days and now (400 `bad_query` also when from > to). */
export const BooksQuery = z.object({
  from: IntText.optional().describe('Unix ms (default now - 30 days)'),
  to: IntText.optional().describe('Unix ms (default now)'),
});

export const ItemBookAnswer = z.object({
  market: Market,
  item: ItemKey,
  at: Ms.nullable(),
  entries: z.array(z.tuple([int(), int(), int(0, 4), int()]).describe('[price, stack, band, n]')),
  now: Ms,
});
export const BooksAnswer = z.object({
  market: Market,
  books: z.array(z.object({ at: Ms, complete: z.boolean(), auctions: int(), entries: int(), url: z.string() })),
  now: Ms,
});

/** The stored book body and the hourly snapshot are files passed through as stored (their formats: Resources). */
const StoredJson = z.looseObject({ v: int().optional(), market: Market }).describe('the stored document (gzip when accepted)');

export const marketBookDocs = {
  'GET /api/v1/ah/{market}/{item}/book': { answer: ItemBookAnswer, errors: ['bad_market', 'bad_item', 'forbidden'] },
  'GET /api/v1/ah/{market}/books': {
    query: BooksQuery,
    answer: BooksAnswer,
    errors: ['bad_market', 'bad_query', 'forbidden'],
    rules: ['`from` is at most `to`'],
  },
  'GET /api/v1/ah/{market}/books/{at}': { answer: StoredJson, errors: ['bad_market', 'forbidden', 'unknown_book'], cached: true, spills: true },
  'GET /api/v1/ah/{market}/snapshot': { answer: StoredJson, errors: ['bad_market', 'not_found'], keyExempt: true, cached: true, spills: true },
} satisfies DocsOf<'api'>;
