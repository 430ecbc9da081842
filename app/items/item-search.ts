/**
 * Finding an item by name or key (issue 24 point 5): the search index (GET /api/v1/items/search-index, spec
 * `{v, build, items: [key, name, quality, icon, class, subclass][]}`) is loaded once per page, then matched
 * here. A deployment without item data (404) still takes a typed key: the index is a help, not a gate.
 */
import type { HttpClient } from '../../shared/client/http-client';
import { h } from '../dom';

export type { ItemMatch, SearchEntry } from './match-items';

import { type ItemMatch, matchItems, type SearchEntry } from './match-items';

export { itemLabel, matchItems } from './match-items';

let loaded: Promise<SearchEntry[]> | null = null;

/** The search index's entries ([] when the deployment has no item data or it cannot be read now). */
export function searchIndex(api: HttpClient): Promise<SearchEntry[]> {
  loaded ??= api
    .searchIndex()
    .then((file) => ((file as { items?: SearchEntry[] }).items ?? []) as SearchEntry[])
    .catch(() => {
      loaded = null;
      return [];
    });
  return loaded;
}

/**
 * An item picker: a search box whose suggestions are a list of buttons; choosing one calls `onPick`. `label`
 * names the box (a reader and a test find it by that name).
 */
export function itemPicker(opts: { index: readonly SearchEntry[]; label: string; onPick(match: ItemMatch): void; id: string }): HTMLElement {
  const input = h('input', { id: opts.id, type: 'search', autocomplete: 'off', inputmode: 'search' });
  const list = h('ul', { class: 'suggestions', 'aria-label': 'Suggestions' });
  const hint = h(
    'p',
    { class: 'hint', id: `${opts.id}-hint` },
    opts.index.length ? 'Type part of a name, or an item key.' : 'Item names are not available on this deployment: type an item key.',
  );
  input.setAttribute('aria-describedby', hint.id);
  const draw = () => {
    list.replaceChildren(
      ...matchItems(opts.index, input.value).map((m) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                opts.onPick(m);
                input.value = '';
                list.replaceChildren();
              },
            },
            m.name ? `${m.name} (${m.key})` : `Item ${m.key}`,
          ),
        ),
      ),
    );
  };
  input.addEventListener('input', draw);
  return h('div', { class: 'field' }, h('label', { for: opts.id }, opts.label), input, hint, list);
}
