/** `#/market/watch`: the signed-in shell of the watchlist (GET /api/v1/market/watch); the full editor is issue 24 point 5. */
import { h } from '../dom';
import type { AppRoute } from '../router';

export const marketWatchRoute: AppRoute = {
  path: '/market/watch',
  title: 'Watchlist',
  signedIn: true,
  async render({ session }) {
    const { items } = await session.api.watchlist();
    if (!items.length) return h('p', {}, 'Your watchlist is empty.');
    return h('ul', { class: 'stack' }, ...items.map((key) => h('li', {}, h('a', { href: `/item/${key}` }, `Item ${key}`))));
  },
};
