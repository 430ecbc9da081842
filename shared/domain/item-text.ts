/**
 * One key's records read from an items file's text, without parsing the whole file (issue 23: pages and
 * item reads hold the text, a fraction of the parsed file's memory, and parse one record). Pure.
 *
 * The files are written by `JSON.stringify` of a generated or merged item file, where the only objects keyed
 * by a number are the records of `items` (item ids, below KEY_BASE) and `variants` (keys, from KEY_BASE on):
 * the ids of the two never meet, and the other number-keyed maps hold strings and arrays. A `"<id>":{` outside
 * a string is therefore exactly a record's start, and it never occurs inside one: a quote in a string is
 * escaped, and no object key but a record's ends in a digit followed by `:{`.
 */
import { isVariantKey, splitKey } from './item-key';
import type { ItemRecord, VariantRecord } from './items';

/** The end (index after the closing brace) of the object starting at `start`, strings and nesting honoured. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error('item file text ends inside a record');
}

/** The record keyed `id` (an item id or a variant key), parsed alone; null when the file has none. */
export function recordInText(text: string, id: number): Record<string, unknown> | null {
  const marker = `"${id}":{`;
  const at = text.indexOf(marker);
  if (at < 0) return null;
  const start = at + marker.length - 1;
  return JSON.parse(text.slice(start, objectEnd(text, start))) as Record<string, unknown>;
}

/** Spec GET /api/v1/items/:key from the file's text: as `itemOfKey` (shared/domain/items.ts) on the parsed file. */
export function itemOfKeyInText(text: string, key: number): { item: ItemRecord | null; variant?: VariantRecord } {
  const item = recordInText(text, splitKey(key).item) as ItemRecord | null;
  if (!isVariantKey(key)) return { item };
  const variant = recordInText(text, key) as VariantRecord | null;
  return variant ? { item, variant } : { item };
}
