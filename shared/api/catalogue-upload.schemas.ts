/**
 * Schema of POST /api/v1/items/seen (spec api.md Item data, Catalogue upload rules): `{build?, items}`, at
 * most 5000 entries `[key, name (1..200 characters once trimmed), quality 0..10, iconFileID, flags 0..7]`;
 * a key given twice counts once (the last). Any broken rule is 400 `bad_request`. Names are shown on public
 * pages, so a name holding a control character, a line break or a bidirectional control (once trimmed) is
 * refused too (domain/inert-text.ts says which characters, and why).
 */
import * as z from 'zod';
import { hasUnsafeText, UNSAFE_CHAR_CLASS, UNSAFE_TEXT_MESSAGE } from '../domain/inert-text';
import { CATALOGUE_MAX_ENTRIES, CATALOGUE_NAME_MAX, type CatalogueReport, type CatalogueUpload } from '../domain/item-catalogue';
import { ItemKey, int } from './common.schemas';
import type { DocsOf } from './route-doc';

const codePoints = (s: string): number => [...s].length;

/** The refused characters and any surrogate (a lone one: a pair is one code point to JSON Schema), inside a class. */
const REFUSED = `${UNSAFE_CHAR_CLASS.slice(1, -1)}\\ud800-\\udfff`;
/**
 * The name rule as JSON Schema states it: no refused character anywhere and one that is not white space (the
 * name is trimmed, then 1..200 characters). Stricter than the rule at the ends, where it refuses tabs and line
 * breaks the trim would drop.
 */
const NAME_PATTERN = `^[^${REFUSED}]*[^${REFUSED}\\s][^${REFUSED}]*$`;

export const CatalogueEntry = z
  .tuple([
    ItemKey,
    z
      .string()
      .trim()
      .refine((n) => n.length > 0 && codePoints(n) <= CATALOGUE_NAME_MAX, `name must be 1..${CATALOGUE_NAME_MAX} characters`)
      .refine((n) => !hasUnsafeText(n), `name ${UNSAFE_TEXT_MESSAGE}`)
      .meta({ minLength: 1, maxLength: CATALOGUE_NAME_MAX, pattern: NAME_PATTERN, description: `name: 1..${CATALOGUE_NAME_MAX} characters, no controls` }),
    int(0, 10).describe('quality'),
    int().describe('icon file id (0: none)'),
    int(0, 7).describe('flags: bit 0 commodity, bit 1 equipment, bit 2 pet'),
  ])
  .describe('[key, name, quality, iconFileID, flags]');

export const CatalogueBody = z.object({
  build: z.string().max(200).optional().describe('informational'),
  items: z.array(CatalogueEntry).max(CATALOGUE_MAX_ENTRIES, `at most ${CATALOGUE_MAX_ENTRIES} entries per upload`),
});

/** The parsed upload: key → its last report, in the order of the last entries. */
export const CatalogueUploadBody = CatalogueBody.transform(({ build, items }): CatalogueUpload => {
  const out = new Map<number, CatalogueReport>();
  for (const [key, n, q, fi, fl] of items) {
    // Delete first so a repeated key takes the position of its last entry too.
    out.delete(key);
    out.set(key, { n, q, fi, fl });
  }
  return build === undefined ? { items: out } : { build, items: out };
});

export const catalogueDocs = {
  'POST /api/v1/items/seen': {
    body: CatalogueBody,
    answer: z.object({ added: int(), known: int() }),
    errors: ['unauthenticated', 'forbidden', 'devices_only', 'bad_request', 'too_large'],
    callers: 'uploaders',
  },
} satisfies DocsOf<'upload'>;
