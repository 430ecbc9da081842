/** Matching the search index (pure, no DOM): item search by name or key (app/items/item-search.ts). */
import { isItemKey } from '../../shared/domain/item-key';

export type SearchEntry = [key: number, name: string, quality: number, icon: string | number, cls: number | null, subclass: number | null];

export interface ItemMatch {
  key: number;
  /** The item's name, or null when the index does not know the key. */
  name: string | null;
}

/** Matches of `query` (pure): a typed key first, then names starting with it, then names containing it; at most `max`. */
export function matchItems(index: readonly SearchEntry[], query: string, max = 8): ItemMatch[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const out: ItemMatch[] = [];
  if (/^\d+$/.test(q) && isItemKey(Number(q))) {
    const key = Number(q);
    out.push({ key, name: index.find((e) => e[0] === key)?.[1] ?? null });
  }
  const starts: ItemMatch[] = [];
  const contains: ItemMatch[] = [];
  for (const [key, name] of index) {
    const n = name.toLowerCase();
    if (out.some((m) => m.key === key)) continue;
    if (n.startsWith(q)) starts.push({ key, name });
    else if (n.includes(q)) contains.push({ key, name });
    if (starts.length >= max) break;
  }
  return [...out, ...starts, ...contains].slice(0, max);
}

/** A label for a key: its name from the index, else `Item <key>`. */
export const itemLabel = (index: readonly SearchEntry[], key: number): string => index.find((e) => e[0] === key)?.[1] ?? `Item ${key}`;
