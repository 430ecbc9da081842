/**
 * Item search over the search index (spec files-and-live: Search index `{v: 1, build, items: [key, name,
 * quality, icon, class, subclass][]}`), done in the browser: the index is one public, cached file, so a
 * search costs no request. Pure.
 */

/** One entry of the index: `[key, name, quality, icon, class, subclass]`. */
export type SearchEntry = [key: number, name: string, quality: number, icon: string | number, cls: number | null, subclass: number | null];

export interface SearchHit {
  key: number;
  name: string;
  quality: number;
}

/** How many hits a search shows at most (a person refines the words rather than scrolls). */
export const SEARCH_LIMIT = 25;

/** The index's entries, or none when the answer is not an index (an old or foreign file must not break the page). */
export function entriesOf(index: unknown): SearchEntry[] {
  const items = (index as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.filter((e): e is SearchEntry => Array.isArray(e) && typeof e[0] === 'number' && typeof e[1] === 'string');
}

/**
 * The entries matching what a person typed: every word must occur in the name (any case), or the text is the
 * item key itself. Exact names first, then names starting with the text, then names with a word starting
 * with the first word, then the rest; the index's own order (by name) within each group.
 */
export function searchItems(entries: readonly SearchEntry[], text: string, limit = SEARCH_LIMIT): SearchHit[] {
  const query = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!query) return [];
  const words = query.split(' ');
  const key = /^[0-9]{1,16}$/.test(query) ? Number(query) : null;
  const ranked: Array<{ rank: number; at: number; hit: SearchHit }> = [];
  entries.forEach(([k, name, quality], at) => {
    const lower = name.toLowerCase();
    let rank: number;
    if (k === key) rank = 0;
    else if (!words.every((w) => lower.includes(w))) return;
    else if (lower === query) rank = 1;
    else if (lower.startsWith(query)) rank = 2;
    else if (lower.split(/[\s'-]+/).some((part) => part.startsWith(words[0]))) rank = 3;
    else rank = 4;
    ranked.push({ rank, at, hit: { key: k, name, quality } });
  });
  return ranked
    .sort((a, b) => a.rank - b.rank || a.at - b.at)
    .slice(0, limit)
    .map((r) => r.hit);
}

/** The names of the index by key (for tables that show keys). */
export function namesOf(entries: readonly SearchEntry[]): Map<number, string> {
  return new Map(entries.map(([key, name]) => [key, name]));
}
