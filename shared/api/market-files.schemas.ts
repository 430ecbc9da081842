/** Schema of GET /api/v1/ah/:market/files (api.md Market reads; files-and-live Endpoints). */
import * as z from 'zod';
import { int, Market, Ms } from './common.schemas';
import type { DocsOf } from './route-doc';

export const FilesAnswer = z.object({
  market: Market,
  cdnBase: z.string(),
  snapshot: z.string().nullable(),
  d1: z.string().nullable(),
  sealed: z.object({ m1: int().nullable(), h1: int().nullable(), d1: int().nullable() }),
  live: z
    .object({
      seq: int(),
      at: Ms.nullable(),
      checkpoint: z.object({ seq: int(), url: z.string() }).nullable(),
      changes: z.array(z.tuple([int(), z.string()])),
    })
    .optional()
    .describe('with prices.live'),
  caps: z.record(z.string(), z.unknown()).optional().describe('as in the live hello'),
  books: z
    .array(z.object({ at: Ms, complete: z.boolean(), url: z.string() }))
    .optional()
    .describe('with books: the last 30 days'),
  now: Ms,
});

export const marketFilesDocs = {
  'GET /api/v1/ah/{market}/files': { answer: FilesAnswer, errors: ['bad_market', 'forbidden'], cached: true },
} satisfies DocsOf<'api'>;
