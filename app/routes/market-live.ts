/**
 * `#/market/live?m=<market>`: the market's live table for callers with `prices.live` (spec files-and-live:
 * Live socket and the gap rule, through the typed live client): the most recently changed rows, updated as
 * uploads are merged. Everyone else sees the hourly view's time and what to do to see live prices.
 */
import { DEFAULT_MARKET, isMarket } from '../../shared/domain/market';
import { h, replace, say, section, status, when } from '../dom';
import { searchEntries } from '../market/catalogue';
import { openLiveFeed } from '../market/live';
import { recentRows } from '../market/markets';
import { freshnessNote, itemHref, liveHref, marketSelect, marketTitle, priceText, scrollTable } from '../market/parts';
import { namesOf } from '../market/search';
import { readsLive } from '../market/view';
import { explain } from '../messages';
import type { AppRoute } from '../router';

/** How many rows the live table shows (the most recently changed). */
export const LIVE_ROWS = 50;

export const marketLiveRoute: AppRoute = {
  path: '/market/live',
  title: 'Live prices',
  signedIn: false,
  async render({ session, query }) {
    const mq = query.get('m');
    const market = isMarket(mq) ? mq : DEFAULT_MARKET;
    const picker = marketSelect(market, (m) => location.assign(liveHref(m)));
    if (!readsLive(session.me.features)) {
      const { now } = await session.api.markets();
      return h(
        'div',
        { class: 'stack market-view' },
        section(
          marketTitle(market),
          freshnessNote(session, false, now),
          h('p', {}, h('a', { href: '#/market' }, 'See the six markets in the hourly view'), '.'),
        ),
      );
    }
    const line = status();
    const body = h('tbody', {});
    const names = await searchEntries(session.api)
      .then(namesOf)
      .catch(() => new Map<number, string>());
    say(line, 'Connecting to the live feed…');
    try {
      await openLiveFeed(session, market, (table) => {
        const rows = recentRows(table, LIVE_ROWS);
        replace(
          body,
          ...rows.map(([key, price, quantity, at]) =>
            h(
              'tr',
              { 'data-key': key },
              h('th', { scope: 'row' }, h('a', { href: itemHref(key, market) }, names.get(key) ?? `Item ${key}`)),
              h('td', {}, priceText(quantity > 0 ? price : null)),
              h('td', {}, quantity.toLocaleString('en-US')),
              h('td', {}, when(at)),
            ),
          ),
        );
        say(
          line,
          `Live: ${table.size.toLocaleString('en-US')} items in this market; the ${Math.min(LIVE_ROWS, table.size)} most recently changed are shown.`,
          'ok',
        );
      });
      if (!body.childElementCount) say(line, 'Live: waiting for the first upload of this market.', 'ok');
    } catch (err) {
      say(line, `The live feed could not be reached. ${explain(err)} Reload the page to try again.`, 'error');
    }
    return h(
      'div',
      { class: 'stack market-view' },
      section(
        marketTitle(market),
        picker,
        freshnessNote(session, true, 0),
        line,
        scrollTable(
          `Live prices of ${marketTitle(market)}`,
          h(
            'table',
            { 'aria-label': `Live prices of ${marketTitle(market)}` },
            h('thead', {}, h('tr', {}, ...['Item', 'Price', 'Listed', 'Changed'].map((c) => h('th', { scope: 'col' }, c)))),
            body,
          ),
        ),
      ),
    );
  },
};
