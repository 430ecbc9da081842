/**
 * `#/market/watch`: the watchlist (GET, PUT /api/v1/market/watch), an ordered list of item keys. Items are
 * added from the item search and removed one by one; each change PUTs the whole list, as the route takes it.
 * Without `watchlist` the page says so before anyone tries (a write would be 403); past the plan's limit the
 * 409 is told as "remove one first".
 */

import { explainWrite, lacks } from '../alerts/settings-messages';
import { h, say, status } from '../dom';
import { itemLabel, itemPicker, searchIndex } from '../items/item-search';
import type { AppRoute } from '../router';

export const marketWatchRoute: AppRoute = {
  path: '/market/watch',
  title: 'Watchlist',
  signedIn: true,
  async render({ session, redraw }) {
    const [{ items }, index] = await Promise.all([session.api.watchlist(), searchIndex(session.api)]);
    const line = status();
    const canWrite = !lacks(session.me.features, 'watchlist');
    const limit = session.me.limits.watchlist;
    const save = async (next: number[], doing: string) => {
      say(line, doing);
      try {
        await session.api.putWatchlist(next);
        redraw();
      } catch (err) {
        say(line, explainWrite(err, 'watchlist'), 'error');
      }
    };
    const rows = items.map((key) =>
      h(
        'li',
        { class: 'row' },
        h('a', { href: `/item/${key}` }, itemLabel(index, key)),
        canWrite &&
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Remove ${itemLabel(index, key)}`,
              onclick: () =>
                save(
                  items.filter((k) => k !== key),
                  'Removing…',
                ),
            },
            'Remove',
          ),
        h('a', { href: `#/market/alerts?item=${key}` }, 'Add an alert'),
      ),
    );
    const adder = canWrite
      ? itemPicker({
          index,
          id: 'watch-search',
          label: 'Add an item',
          onPick: (m) => {
            if (items.includes(m.key)) say(line, `${m.name ?? `Item ${m.key}`} is already on your watchlist.`);
            else void save([...items, m.key], `Adding ${m.name ?? `item ${m.key}`}…`);
          },
        })
      : h('p', { class: 'status', 'data-tone': 'error' }, 'Your plan does not include a watchlist: see your plan on the account page.');
    return h(
      'div',
      { class: 'stack' },
      h('p', { class: 'muted' }, `${items.length} of ${limit} items.`),
      items.length ? h('ul', { class: 'stack watchlist' }, ...rows) : h('p', {}, 'Your watchlist is empty.'),
      adder,
      line,
    );
  },
};
