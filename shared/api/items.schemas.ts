/** Schemas of the item data routes (spec api.md Item data). */
import * as z from 'zod';
import { ItemKey, int, Ms } from './common.schemas';
import type { DocsOf } from './route-doc';

/** `?build`: a build name (an unknown one is 400 `bad_build`, checked against the stored builds). */
export const BuildQuery = z.object({ build: z.string().optional().describe('a build name (one the service stores); default the current build') });
/** Item data names a build only the service knows. */
const BUILD_RULES = ['`build` names a build the service stores'] as const;

export const ItemRecord = z.looseObject({
  n: z.string().describe('name'),
  q: int().describe('quality'),
  il: int().optional(),
  c: int().optional(),
  sc: int().optional(),
  ic: z.string().optional(),
  fi: int().optional(),
  sell: int().optional(),
  buy: int().optional(),
  st: int().optional(),
  rs: z.boolean().optional(),
  bt: z.array(int()).optional(),
  fl: int().optional(),
});
export const ItemAnswer = z.object({
  build: z.string(),
  key: ItemKey,
  item: ItemRecord.nullable(),
  variant: z.object({ n: z.string(), q: int(), fi: int().optional() }).optional(),
  now: Ms,
});
/** Merged item data and search index are stored files (formats: Resources, Item data). */
export const ItemFile = z.looseObject({ v: z.literal(1), build: z.string() });

/** The merged item data and the search index: one stored file each, documented alike. */
const ITEM_FILE_DOC = {
  query: BuildQuery,
  answer: ItemFile,
  errors: ['bad_build', 'not_found'] as ('bad_build' | 'not_found')[],
  keyExempt: true,
  cached: true,
  spills: true,
  rules: BUILD_RULES,
};

export const itemDocs = {
  'GET /api/v1/items': ITEM_FILE_DOC,
  'GET /api/v1/items/search-index': ITEM_FILE_DOC,
  'GET /api/v1/items/unknown': { answer: z.object({ items: z.array(ItemKey), now: Ms }), keyExempt: true, cached: true },
  'GET /api/v1/items/{key}': { answer: ItemAnswer, errors: ['bad_item', 'not_found'], keyExempt: true, cached: true },
} satisfies DocsOf<'api'>;
