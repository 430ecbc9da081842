/** `#/market/alerts` (where a grouped push opens): the signed-in shell of the alerts (GET /api/v1/market/alerts); the editor is issue 24 point 5. */
import { h } from '../dom';
import type { AppRoute } from '../router';

export const marketAlertsRoute: AppRoute = {
  path: '/market/alerts',
  title: 'Alerts',
  signedIn: true,
  async render({ session }) {
    const { alerts } = await session.api.alerts();
    if (!alerts.length) return h('p', {}, 'You have no alerts.');
    return h(
      'ul',
      { class: 'stack' },
      ...alerts.map((a) => h('li', {}, `${a.name ?? `Item ${a.item}`}: ${a.kind} ${a.value} (${a.armed ? 'armed' : 'fired'})`)),
    );
  },
};
