/**
 * `#/market/alerts` (where a grouped push opens): the caller's alerts (GET /api/v1/market/alerts) with their
 * state (armed, last firing and its hits), the form that creates or edits one of any kind (POST, PUT), delete
 * (DELETE), and fired alerts arriving through the live socket while the page is open (app/alerts/alert-feed.ts).
 * `?item=<key>` starts a new alert for that item (the watchlist links here).
 */
import type { MarketAlert } from '../../shared/domain/alerts';
import { MARKETS } from '../../shared/domain/market';
import { marketName } from '../../shared/domain/push-message';
import { formatCopper } from '../../shared/pages/money';
import { alertEditor } from '../alerts/alert-editor';
import { type AlertFeed, followAlerts } from '../alerts/alert-feed';
import { alertToForm, blankForm, conditionText, stateText } from '../alerts/alert-form';
import { explainWrite, lacks } from '../alerts/settings-messages';
import { h, replace, say, status, when } from '../dom';
import { itemLabel, type SearchEntry, searchIndex } from '../items/item-search';
import type { AppRoute, RouteContext } from '../router';

const PATH = '/market/alerts';
let feed: AlertFeed | null = null;
addEventListener('hashchange', () => {
  if (!location.hash.startsWith(`#${PATH}`)) {
    feed?.close();
    feed = null;
  }
});

const hitText = (index: readonly SearchEntry[], [item, price, quantity]: [number, number | null, number]): string =>
  `${itemLabel(index, item)}: ${price === null ? 'none listed' : formatCopper(price)}, ${quantity.toLocaleString('en-US')} listed`;

/** What people call an alert: its name, else its item's, else (a whole-market deal) its market's deals. */
const alertTitle = (a: MarketAlert, index: readonly SearchEntry[]): string =>
  a.name ?? (a.item === 0 ? `Deals in ${marketName(a.market)}` : itemLabel(index, a.item));

function alertCard(a: MarketAlert, index: readonly SearchEntry[], actions: HTMLElement | null): HTMLElement {
  const title = alertTitle(a, index);
  return h(
    'li',
    { class: 'card alert', 'data-alert': a.id, 'data-armed': String(a.armed) },
    h('h3', {}, a.item === 0 ? title : h('a', { href: `/item/${a.item}?m=${a.market}` }, title)),
    h('p', {}, `${marketName(a.market)}: ${conditionText(a)}.`),
    h('p', { class: 'alert-state' }, stateText(a, when)),
    a.last?.hits.length ? h('ul', { class: 'hits', 'aria-label': 'Last firing' }, ...a.last.hits.map((hit) => h('li', {}, hitText(index, hit)))) : null,
    a.note ? h('p', { class: 'muted' }, a.note) : null,
    actions,
  );
}

async function render({ session, query, redraw }: RouteContext) {
  const [{ alerts }, index] = await Promise.all([session.api.alerts(), searchIndex(session.api)]);
  const canWrite = !lacks(session.me.features, 'alerts');
  const line = status();
  const fired = h('div', { class: 'fired', role: 'log', 'aria-live': 'polite', 'aria-label': 'Alerts fired while this page is open' });
  const list = h('ul', { class: 'stack alerts' });
  const editorSlot = h('div', {});
  const queryItem = Number(query.get('item') ?? '');

  const drawEditor = (editing: MarketAlert | null) => {
    if (!canWrite) {
      replace(editorSlot, h('p', { class: 'status', 'data-tone': 'error' }, 'Your plan does not include alerts: see your plan on the account page.'));
      return;
    }
    const form = editing ? alertToForm(editing) : blankForm(MARKETS[0], Number.isSafeInteger(queryItem) && queryItem > 0 ? queryItem : undefined);
    replace(
      editorSlot,
      alertEditor({
        form,
        index,
        editing,
        cancel: () => drawEditor(null),
        save: async (input) => {
          if (editing) await session.api.replaceAlert(editing.id, input);
          else await session.api.createAlert(input);
          redraw();
        },
      }),
    );
    if (editing) (editorSlot.querySelector('select, input') as HTMLElement | null)?.focus();
  };

  const drawList = () => {
    if (!alerts.length) {
      replace(list, h('li', {}, 'You have no alerts yet.'));
      return;
    }
    replace(
      list,
      ...alerts.map((a) => {
        const label = alertTitle(a, index);
        const actions = canWrite
          ? h(
              'div',
              { class: 'actions' },
              h('button', { type: 'button', 'aria-label': `Edit ${label}`, onclick: () => drawEditor(a) }, 'Edit'),
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': `Delete ${label}`,
                  onclick: async () => {
                    say(line, `Deleting ${label}…`);
                    try {
                      await session.api.deleteAlert(a.id);
                      redraw();
                    } catch (err) {
                      say(line, explainWrite(err, 'alerts'), 'error');
                    }
                  },
                },
                'Delete',
              ),
            )
          : null;
        return alertCard(a, index, actions);
      }),
    );
  };

  drawList();
  drawEditor(null);
  feed?.close();
  feed = null;
  const markets = alerts.filter((a) => a.enabled).map((a) => a.market);
  if (markets.length && session.me.features.includes('live')) {
    feed = await followAlerts(
      session,
      markets,
      (got) => {
        const i = alerts.findIndex((a) => a.id === got.id);
        if (i >= 0) alerts[i] = got;
        drawList();
        const label = alertTitle(got, index);
        fired.prepend(h('p', { class: 'card fired-alert' }, `${label} fired ${when(got.last?.at ?? Date.now())}: ${conditionText(got)}.`));
      },
      (sentence) => say(line, sentence, 'error'),
      () => {
        fired.dataset.live = 'open';
      },
    );
  }
  const limit = session.me.limits.alerts;
  return h(
    'div',
    { class: 'stack' },
    h(
      'p',
      { class: 'muted' },
      `${alerts.length} of ${limit} alerts. `,
      h('a', { href: '#/market/push' }, 'Notifications on this browser'),
      ' · ',
      h('a', { href: '#/market/watch' }, 'Watchlist'),
    ),
    fired,
    list,
    line,
    editorSlot,
  );
}

export const marketAlertsRoute: AppRoute = { path: PATH, title: 'Alerts', signedIn: true, render };
