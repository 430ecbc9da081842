/** `#/market/boards`: the signed-in shell of the boards document (GET /api/v1/market/boards); the editor is issue 24 point 5. */
import { h } from '../dom';
import type { AppRoute } from '../router';

export const marketBoardsRoute: AppRoute = {
  path: '/market/boards',
  title: 'Boards',
  signedIn: true,
  async render({ session }) {
    const { dashboards } = await session.api.boards();
    if (!dashboards.length) return h('p', {}, 'You have no boards.');
    return h('ul', { class: 'stack' }, ...dashboards.map((b) => h('li', {}, b.name)));
  },
};
