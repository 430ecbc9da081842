/**
 * `#/market/boards`: the boards document (GET, PUT /api/v1/market/boards; spec "Boards document"). Boards are
 * added, renamed and deleted, and their widgets (an item's price or chart, the watchlist, the market) added and
 * removed; Save PUTs the whole document, screens kept as they were. Other widget fields are the desktop app's
 * and are kept as given. Limits (20 boards, 24 widgets, 64 KB) are the service's: its 409/413 are told as
 * what to remove.
 */
import type { Boards } from '../../shared/client/http-client';
import { explainWrite, lacks } from '../alerts/settings-messages';
import { h, replace, say, status } from '../dom';
import type { AppRoute } from '../router';

type Board = Boards['dashboards'][number];

const WIDGET_TYPES: readonly [type: string, label: string][] = [
  ['price', 'Item price'],
  ['chart', 'Item chart'],
  ['watchlist', 'Watchlist'],
  ['market', 'Market overview'],
];
const typeLabel = (t: string): string => WIDGET_TYPES.find(([w]) => w === t)?.[1] ?? t;

/** A fresh id of `A-Za-z0-9_-`, unique among `taken`. */
function freshId(prefix: string, taken: readonly string[]): string {
  for (let n = taken.length + 1; ; n++) if (!taken.includes(`${prefix}${n}`)) return `${prefix}${n}`;
}

export const marketBoardsRoute: AppRoute = {
  path: '/market/boards',
  title: 'Boards',
  signedIn: true,
  async render({ session }) {
    const doc = await session.api.boards();
    const boards: Board[] = doc.dashboards.map((b) => ({ ...b, widgets: [...b.widgets] }));
    const canWrite = !lacks(session.me.features, 'boards');
    const line = status();
    const holder = h('div', { class: 'stack' });
    const changed = () => {
      say(line, 'Unsaved changes: press Save boards to keep them.');
      draw();
    };

    const boardCard = (b: Board, i: number): HTMLElement => {
      const nameId = `board-name-${i}`;
      const typeId = `board-widget-${i}`;
      const name = h('input', { id: nameId, value: b.name, maxlength: 60, disabled: !canWrite });
      name.addEventListener('change', () => {
        b.name = name.value.trim();
        say(line, 'Unsaved changes: press Save boards to keep them.');
      });
      const type = h('select', { id: typeId }, ...WIDGET_TYPES.map(([t, label]) => h('option', { value: t }, label)));
      return h(
        'li',
        { class: 'card board' },
        h('div', { class: 'field' }, h('label', { for: nameId }, 'Board name'), name),
        b.widgets.length
          ? h(
              'ul',
              { class: 'widgets', 'aria-label': `Widgets of ${b.name}` },
              ...b.widgets.map((w, j) =>
                h(
                  'li',
                  { class: 'row' },
                  typeLabel(String(w.type)),
                  canWrite &&
                    h(
                      'button',
                      {
                        type: 'button',
                        'aria-label': `Remove widget ${j + 1} (${typeLabel(String(w.type))}) of ${b.name}`,
                        onclick: () => {
                          b.widgets.splice(j, 1);
                          changed();
                        },
                      },
                      'Remove',
                    ),
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'No widgets yet.'),
        canWrite &&
          h(
            'div',
            { class: 'actions' },
            h('div', { class: 'field' }, h('label', { for: typeId }, 'Widget'), type),
            h(
              'button',
              {
                type: 'button',
                onclick: () => {
                  b.widgets.push({
                    id: freshId(
                      'w',
                      b.widgets.map((w) => w.id),
                    ),
                    type: type.value,
                  });
                  changed();
                },
              },
              'Add widget',
            ),
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Delete board ${b.name}`,
                onclick: () => {
                  boards.splice(i, 1);
                  changed();
                },
              },
              'Delete board',
            ),
          ),
      );
    };

    const draw = () => {
      replace(holder, boards.length ? h('ul', { class: 'stack boards' }, ...boards.map(boardCard)) : h('p', {}, 'You have no boards.'));
    };
    draw();

    const save = async () => {
      const empty = boards.findIndex((b) => !b.name.trim());
      if (empty >= 0) {
        say(line, `Give board ${empty + 1} a name (1 to 60 characters), then save again.`, 'error');
        document.getElementById(`board-name-${empty}`)?.focus();
        return;
      }
      say(line, 'Saving…');
      try {
        const stored = await session.api.putBoards({ dashboards: boards, screens: doc.screens });
        boards.splice(0, boards.length, ...stored.dashboards.map((b) => ({ ...b, widgets: [...b.widgets] })));
        draw();
        say(line, `Saved ${boards.length === 1 ? '1 board' : `${boards.length} boards`}.`, 'ok');
      } catch (err) {
        say(line, explainWrite(err, 'boards'), 'error');
      }
    };

    const controls = canWrite
      ? h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                boards.push({
                  id: freshId(
                    'board',
                    boards.map((b) => b.id),
                  ),
                  name: `Board ${boards.length + 1}`,
                  widgets: [],
                });
                changed();
              },
            },
            'Add board',
          ),
          h('button', { type: 'button', class: 'primary', onclick: () => void save() }, 'Save boards'),
        )
      : h('p', { class: 'status', 'data-tone': 'error' }, 'Your plan does not include boards: see your plan on the account page.');
    return h('div', { class: 'stack' }, holder, controls, line);
  },
};
