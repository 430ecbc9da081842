/**
 * The search index, asked once per page (it is public and cached by the browser for 10 minutes). Big
 * catalogues answer `303 See Other` to the same file on the file host; `fetch` follows it.
 */
import type { HttpClient } from '../../shared/client/http-client';
import { entriesOf, type SearchEntry } from './search';

let index: Promise<SearchEntry[]> | null = null;

/** The index's entries; a failed load is asked again next time. */
export function searchEntries(api: HttpClient): Promise<SearchEntry[]> {
  if (!index) {
    const loading = api.searchIndex().then(entriesOf);
    loading.catch(() => {
      if (index === loading) index = null;
    });
    index = loading;
  }
  return index;
}
