/**
 * `#/market/item?key=<key>&m=<market>`: one item in one market (spec api.md `GET /api/v1/ah/:market/:item`,
 * `…/candles`): its price, an interactive candle and volume chart at the resolutions the caller's features
 * allow (the chart library loads only here, by `import()`), the same item across the six markets, and for
 * callers with `prices.live` the price kept live through the market's socket (app/market/live.ts).
 */
import { isItemKey } from '../../shared/domain/item-key';
import { DEFAULT_MARKET, isMarket, MARKETS } from '../../shared/domain/market';
import { pageName } from '../../shared/pages/item-page';
import { h, replace, say, section, status, when } from '../dom';
import { type ApiCandle, describeSeries, toSeries } from '../market/chart-data';
import { openLiveFeed } from '../market/live';
import { compareAcross, type Row } from '../market/markets';
import { freshnessNote, itemHref, liveHref, marketSelect, marketTitle, priceText, scrollTable } from '../market/parts';
import { pickResolution, RESOLUTIONS, type Resolution, readsLive } from '../market/view';
import { explain } from '../messages';
import type { AppRoute, RouteContext } from '../router';

/** The price card: price per unit, quantity listed and when it was observed; `show` redraws it for a new row. */
function priceCard(row: Row | null): { el: HTMLElement; show(row: Row | null): void } {
  const price = h('p', { class: 'price', 'data-testid': 'item-price' });
  const seen = h('p', { class: 'muted', 'data-testid': 'item-observed' });
  const show = (r: Row | null) => {
    if (!r || r[1] === null || r[2] === 0) {
      price.textContent = 'No observed price';
      seen.textContent = r ? `Not listed when last observed (${when(r[3])}).` : 'No upload has listed this item in this market yet.';
      return;
    }
    replace(price, priceText(r[1]), ' ', h('span', { class: 'per' }, 'per unit'));
    seen.textContent = `${r[2].toLocaleString('en-US')} listed · observed ${when(r[3])}`;
  };
  show(row);
  return { el: h('div', { class: 'summary' }, price, seen), show };
}

/** The chart: resolution buttons, the canvas (drawn once the library has loaded) and its text description. */
function chartSection(ctx: RouteContext, market: string, key: number, name: string): HTMLElement {
  const features = ctx.session.me.features;
  const allowed = RESOLUTIONS.filter((r) => features.includes(r.feature));
  let res = pickResolution(features, ctx.query.get('res'));
  const box = h('div', { class: 'price-chart', role: 'img', 'aria-label': `${name} price chart, loading` });
  const line = status();
  let drawn: { update(s: ReturnType<typeof toSeries>): void } | null = null;
  const buttons = allowed.map((r) =>
    h(
      'button',
      {
        type: 'button',
        'aria-pressed': String(r.res === res),
        'data-res': r.res,
        onclick: () => {
          res = r.res;
          for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.res === res));
          void load();
        },
      },
      r.label,
    ),
  );
  const load = async () => {
    if (!res) return;
    const asked: Resolution = res;
    say(line, 'Loading the chart…');
    try {
      const [chart, answer] = await Promise.all([import('../market/chart'), ctx.session.api.itemCandles(market, key, { res: asked })]);
      if (asked !== res) return;
      const series = toSeries(answer.candles as ApiCandle[]);
      const label = RESOLUTIONS.find((r) => r.res === asked)?.label ?? '';
      box.setAttribute('aria-label', describeSeries(series, `${name}, ${label.toLowerCase()}`));
      if (drawn) drawn.update(series);
      else {
        const made = chart.drawChart(box, series, { timeVisible: asked !== 'd1' });
        drawn = made;
        addEventListener('hashchange', () => made.remove(), { once: true });
      }
      box.dataset.candles = String(series.candles.length);
      say(
        line,
        series.candles.length ? `${label} candles with the quantity listed below them.` : `No ${label.toLowerCase()} candles yet for this item in this market.`,
      );
    } catch (err) {
      say(line, `The chart could not be drawn. ${explain(err)}`, 'error');
    }
  };
  if (!res) return section('Price chart', h('p', {}, 'Your plan includes no price charts.'));
  // Drawn once the section is on the page (the library sizes the chart by its box).
  queueMicrotask(() => void load());
  return section(
    'Price chart',
    h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Resolution' }, ...buttons),
    h(
      'figure',
      { class: 'chart-figure' },
      box,
      h(
        'figcaption',
        { class: 'muted' },
        'Charts by ',
        h('a', { href: 'https://www.tradingview.com/lightweight-charts/', rel: 'noopener' }, 'TradingView Lightweight Charts'),
        '.',
      ),
    ),
    line,
  );
}

/** The item in each of the six markets, cheapest marked; each market opens its own view. */
async function compareSection(ctx: RouteContext, market: string, key: number): Promise<HTMLElement> {
  const answers = await Promise.allSettled(MARKETS.map((m) => ctx.session.api.item(m, key)));
  const failed = answers.find((a) => a.status === 'rejected');
  const rows = compareAcross(MARKETS.map((m, i) => ({ market: m, row: answers[i].status === 'fulfilled' ? (answers[i].value.row as Row | null) : null })));
  return section(
    'Across the six markets',
    scrollTable(
      'Price in each market',
      h(
        'table',
        { 'aria-label': 'Price in each market' },
        h('thead', {}, h('tr', {}, ...['Market', 'Price', 'Listed', 'Observed'].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          {},
          ...rows.map((r) =>
            h(
              'tr',
              { 'data-market': r.market, class: r.cheapest ? 'cheapest' : null },
              h(
                'th',
                { scope: 'row' },
                r.market === market
                  ? h('strong', { 'aria-current': 'page' }, marketTitle(r.market))
                  : h('a', { href: itemHref(key, r.market) }, marketTitle(r.market)),
              ),
              h('td', {}, priceText(r.price), r.cheapest ? h('span', { class: 'badge' }, 'Lowest') : null),
              h('td', {}, r.quantity.toLocaleString('en-US')),
              h('td', {}, r.at === null ? '—' : when(r.at)),
            ),
          ),
        ),
      ),
    ),
    failed ? h('p', { class: 'status', 'data-tone': 'error' }, `Some markets could not be read. ${explain((failed as PromiseRejectedResult).reason)}`) : null,
  );
}

export const marketItemRoute: AppRoute = {
  path: '/market/item',
  title: 'Item prices',
  signedIn: false,
  async render(ctx) {
    const key = Number(ctx.query.get('key'));
    const mq = ctx.query.get('m');
    if (!isItemKey(key) || (mq !== null && !isMarket(mq))) {
      return h(
        'p',
        { class: 'status', 'data-tone': 'error' },
        'This link names no valid item or market: ',
        h('a', { href: '#/market' }, 'search for the item'),
        ' instead.',
      );
    }
    const market = mq ?? DEFAULT_MARKET;
    const { session } = ctx;
    const [record, answer] = await Promise.all([session.api.itemRecord(key).catch(() => null), session.api.item(market, key)]);
    const name = pageName({ key, item: (record?.item ?? null) as never, variant: record?.variant as never });
    const live = readsLive(session.me.features) && answer.live;
    const card = priceCard(answer.row as Row | null);
    const liveLine = status();
    if (live) {
      say(liveLine, 'Connecting to the live feed…');
      openLiveFeed(session, market, (table) => {
        const row = table.get(key);
        if (row) card.show(row);
        say(liveLine, 'Live: the price follows every upload.', 'ok');
      })
        .then(() => say(liveLine, 'Live: the price follows every upload.', 'ok'))
        .catch(() => say(liveLine, 'The live feed could not be reached: the price shown is as of loading the page. Reload to try again.', 'error'));
    }
    const compare = await compareSection(ctx, market, key).catch((err) =>
      section('Across the six markets', h('p', { class: 'status', 'data-tone': 'error' }, explain(err))),
    );
    return h(
      'div',
      { class: 'stack market-view' },
      h(
        'section',
        { class: 'card stack', 'aria-labelledby': 'item-name' },
        h('h2', { id: 'item-name' }, name),
        h('p', { class: 'sub' }, `${marketTitle(market)} · Item key ${key}`),
        marketSelect(market, (m) => location.assign(itemHref(key, m))),
        card.el,
        freshnessNote(session, live, answer.now),
        live ? liveLine : null,
        h(
          'p',
          {},
          h('a', { href: `/item/${key}?m=${encodeURIComponent(market)}` }, 'Item page'),
          ...(live ? [' · ', h('a', { href: liveHref(market) }, 'Live table of this market')] : []),
        ),
      ),
      chartSection(ctx, market, key, name),
      compare,
    );
  },
};
