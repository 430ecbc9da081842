/**
 * `#/market`: the six markets (spec api.md `GET /api/v1/ah`: newest data, items, listed, uploads in 24 h,
 * contributors in 7 days) and item search over the search index. Prices read from here are the caller's:
 * live with `prices.live`, else the hourly view with its time.
 */
import { DEFAULT_MARKET, isMarket } from '../../shared/domain/market';
import { field, h, say, section, status, when } from '../dom';
import { searchEntries } from '../market/catalogue';
import { overviewOf } from '../market/markets';
import { freshnessNote, itemHref, liveHref, marketSelect, marketTitle } from '../market/parts';
import { searchItems } from '../market/search';
import { readsLive } from '../market/view';
import { explain } from '../messages';
import type { AppRoute, RouteContext } from '../router';

const QUALITY = ['Poor', 'Common', 'Uncommon', 'Rare', 'Epic', 'Legendary', 'Artifact', 'Heirloom'];

/** The search form: results link to the item in the chosen market. */
function searchSection({ session, query }: RouteContext): HTMLElement {
  let market = isMarket(query.get('m')) ? (query.get('m') as string) : DEFAULT_MARKET;
  const input = h('input', { type: 'search', name: 'q', autocomplete: 'off', spellcheck: 'false' });
  input.value = query.get('q') ?? '';
  const line = status();
  const results = h('ol', { class: 'results', 'aria-label': 'Items found' });
  const run = async () => {
    const text = input.value.trim();
    results.replaceChildren();
    if (!text) {
      say(line, 'Type part of an item’s name (or its key), then search.', 'info');
      return;
    }
    say(line, 'Searching…');
    try {
      const hits = searchItems(await searchEntries(session.api), text);
      results.replaceChildren(
        ...hits.map((hit) =>
          h(
            'li',
            {},
            h('a', { href: itemHref(hit.key, market) }, hit.name),
            ' ',
            h('span', { class: 'muted' }, `${QUALITY[hit.quality] ?? 'Item'} · key ${hit.key}`),
          ),
        ),
      );
      say(
        line,
        hits.length
          ? `${hits.length} item${hits.length === 1 ? '' : 's'} found for “${text}”.`
          : `No item is named like “${text}”: check the spelling or try fewer words.`,
        hits.length ? 'ok' : 'error',
      );
    } catch (err) {
      say(line, `The item list could not be loaded. ${explain(err)}`, 'error');
    }
  };
  const form = h(
    'form',
    {
      role: 'search',
      class: 'stack',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void run();
      },
    },
    field('Item name or key', input, 'For example “copper ore”, or an item key.'),
    marketSelect(market, (m) => {
      market = m;
      if (input.value.trim()) void run();
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Search')),
  );
  if (input.value.trim()) void run();
  return section('Find an item', form, line, results);
}

const FACTS = ['Newest data', 'Items', 'Listed', 'Uploads (24 h)', 'Contributors (7 d)'];

/** One card per market (a grid that is one column on a phone): its facts, or that it waits for its first upload. */
async function marketsSection({ session }: RouteContext): Promise<HTMLElement> {
  const answer = await session.api.markets();
  const live = readsLive(session.me.features) && answer.live;
  const cards = overviewOf(answer.markets).map(({ market, summary }) => {
    const id = `market-${market.replace(/\./g, '-')}`;
    const facts = summary
      ? h(
          'dl',
          { class: 'facts' },
          ...[when(summary.at), summary.items, summary.listed, summary.scans, summary.contributors7d].flatMap((v, i) => [
            h('dt', {}, FACTS[i]),
            h('dd', {}, typeof v === 'number' ? v.toLocaleString('en-US') : v),
          ]),
        )
      : h('p', { class: 'muted' }, 'No data yet: it appears after the first upload.');
    return h(
      'li',
      { class: 'card', 'aria-labelledby': id, 'data-market': market },
      h('h3', { id }, marketTitle(market)),
      facts,
      live ? h('p', {}, h('a', { href: liveHref(market) }, 'Live table')) : null,
    );
  });
  return section(
    'The six markets',
    freshnessNote(session, live, answer.now),
    h('ul', { class: 'markets market-cards', 'aria-label': 'The six markets' }, ...cards),
  );
}

export const marketRoute: AppRoute = {
  path: '/market',
  title: 'Markets',
  signedIn: false,
  async render(ctx) {
    let markets: HTMLElement;
    try {
      markets = await marketsSection(ctx);
    } catch (err) {
      const line = status();
      say(line, `The markets could not be loaded. ${explain(err)}`, 'error');
      markets = section('The six markets', line);
    }
    return h('div', { class: 'stack market-view' }, searchSection(ctx), markets);
  },
};
