/**
 * Schema of POST /api/v1/ah/books (spec api.md Resources: BookEntry and book upload body; Uploads). It
 * describes the body for the OpenAPI document; the body itself is checked by shared/domain/book.ts in one
 * allocation-free pass (200000 entries must cost little more than their JSON.parse), whose codes differ per
 * field (`bad_market`, `bad_via`, `bad_book`) and whose `at` window reads the server clock.
 * test/unit/api-book-schema.test.ts holds the two to the same verdicts.
 */
import * as z from 'zod';
import { MAX_BOOK_ENTRIES } from '../domain/book';
import { ItemKey, int, MAX31, Market, Ms } from './common.schemas';
import type { DocsOf } from './route-doc';

export const BookEntry = z
  .tuple([
    ItemKey,
    int().describe('buyout per unit in copper; 0 = bid only'),
    int(1, MAX31).describe('stack'),
    int(0, 4).describe('band: 0 unknown, 1 short, 2 medium, 3 long, 4 very long'),
    int(1, MAX31).describe('n'),
  ])
  .describe('[key, price, stack, band, n]');

const ascending = (a: z.infer<typeof BookEntry>, b: z.infer<typeof BookEntry>): boolean =>
  a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && (a[2] < b[2] || (a[2] === b[2] && a[3] < b[3])))));

export const BookBody = z
  .object({
    market: Market,
    at: Ms.describe('original observation time: 24 h behind to 5 min ahead of the server clock (a rule the schema cannot state)'),
    complete: z.boolean().describe('true only after an unfiltered whole-market read finished'),
    auctions: int().describe('sum of n over all entries (a rule the schema cannot state)'),
    entries: z
      .array(BookEntry)
      .max(MAX_BOOK_ENTRIES)
      .refine((es) => es.every((e, i) => i === 0 || ascending(es[i - 1], e)), 'entries must be unique and ascending by (key, price, stack, band)')
      .describe('unique and ascending by (key, price, stack, band): a rule the schema cannot state'),
    via: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
      .optional()
      .describe('partner only'),
  })
  .refine((b) => b.entries.reduce((s, e) => s + e[4], 0) === b.auctions, { message: 'auctions must equal the sum of n over entries', path: ['auctions'] })
  // Documentation's example: the entries' order and the auctions sum are beyond JSON Schema.
  .meta({
    examples: [
      {
        market: 'forever.normal.alliance.us',
        at: Date.UTC(2026, 0, 1),
        complete: true,
        auctions: 3,
        entries: [
          [2589, 1500, 20, 2, 2],
          [2592, 4000, 5, 3, 1],
        ],
      },
    ],
  });

export const UploadAnswer = z.object({
  at: Ms.describe("the market's newest merged observation"),
  credited: z.boolean(),
  reason: z.enum(['disagrees', 'incomplete', 'too_small', 'too_soon_credit', 'duplicate']).optional(),
});

export const bookUploadDocs = {
  'POST /api/v1/ah/books': {
    body: BookBody,
    answer: UploadAnswer,
    errors: [
      'unauthenticated',
      'forbidden',
      'devices_only',
      'not_partner',
      'bad_market',
      'bad_via',
      'bad_book',
      'too_large',
      'too_soon',
      'storage_failed',
      'no_storage',
      'unavailable',
    ],
    callers: 'uploaders',
    rules: [
      '`entries` are unique and ascending by (key, price, stack, band)',
      '`auctions` is the sum of `n` over `entries`',
      "`at` lies within 24 h behind to 5 min ahead of the server's clock",
    ],
  },
} satisfies DocsOf<'upload'>;
