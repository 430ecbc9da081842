/** `#/devices`: the account's paired desktop apps (GET /api/v1/devices), each removable (DELETE: its token stops working). */
import { h, say, status, when } from '../dom';
import { explain } from '../messages';
import type { AppRoute } from '../router';

export const devicesRoute: AppRoute = {
  path: '/devices',
  title: 'Devices',
  signedIn: true,
  async render({ session, redraw }) {
    const { devices } = await session.api.devices();
    const line = status();
    const rows = devices.map((d) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, d.name),
        h('td', {}, when(d.created)),
        h('td', {}, when(d.lastSeen)),
        h(
          'td',
          {},
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Remove ${d.name}`,
              onclick: async () => {
                say(line, `Removing ${d.name}…`);
                try {
                  await session.api.deleteDevice(d.id);
                  redraw();
                } catch (err) {
                  say(line, explain(err), 'error');
                }
              },
            },
            'Remove',
          ),
        ),
      ),
    );
    const table = devices.length
      ? h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            {},
            h('caption', {}, 'Paired desktop apps, newest first'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Name'),
                h('th', { scope: 'col' }, 'Paired'),
                h('th', { scope: 'col' }, 'Last seen'),
                h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')),
              ),
            ),
            h('tbody', {}, ...rows),
          ),
        )
      : h('p', {}, 'No device is paired yet.');
    return h(
      'div',
      { class: 'stack' },
      table,
      line,
      h('p', {}, 'To pair a desktop app, start pairing in the app, then ', h('a', { href: '#/devices/confirm' }, 'confirm its code'), '.'),
    );
  },
};
