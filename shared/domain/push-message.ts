/**
 * Push notification texts (spec Events: "Push notification rules"). Pure: the payload
 * `{v: 1, kind, title, body, tag: "ahf-market", url, ts}` of one fired alert, or of a group.
 */
import { isMarketWide, type MarketAlert } from './alerts';
import { splitKey } from './item-key';

export const PUSH_TAG = 'ahf-market';
/** DESIGN: the group notification's url (a site path starting with `/`). */
export const GROUP_URL = '/#/market/alerts';
/** Spec: the url of a whole-market deal. */
export const MARKET_ALERTS_URL = '/market/alerts';

export interface PushPayload {
  v: 1;
  kind: 'market' | 'group';
  title: string;
  body: string;
  tag: typeof PUSH_TAG;
  url: string;
  ts: number;
}

const RULESET_NAMES: Record<string, string> = { normal: 'Normal', pvp: 'PvP', rp: 'RP' };

/** A market as people read it: `forever.pvp.horde.us` → `PvP Horde (US)`. */
export function marketName(market: string): string {
  const [, ruleset = '', faction = '', region = ''] = market.split('.');
  const f = faction.charAt(0).toUpperCase() + faction.slice(1);
  return `${RULESET_NAMES[ruleset] ?? ruleset} ${f} (${region.toUpperCase()})`;
}

const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Copper as gold, silver and copper (10,000 copper = 1 gold): `12,345g 6s 78c`; zero parts are left out. */
export function formatMoney(copper: number): string {
  const g = Math.floor(copper / 10000);
  const s = Math.floor((copper % 10000) / 100);
  const c = copper % 100;
  const parts = [g > 0 ? `${thousands(g)}g` : '', s > 0 ? `${s}s` : '', c > 0 ? `${c}c` : ''].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : '0c';
}

/** Spec: an alert's name, else `Item <item id>`. */
export const alertName = (a: Pick<MarketAlert, 'name' | 'item'>): string => (a.name && a.name.trim() !== '' ? a.name : `Item ${splitKey(a.item).item}`);

const plural = (n: number, one: string, many: string): string => `${thousands(n)} ${n === 1 ? one : many}`;

/** Title and body of a single-item alert from its newest hit. */
function singleText(a: MarketAlert): { title: string; body: string } {
  const name = alertName(a);
  const [, price, quantity] = a.last?.hits[0] ?? [a.item, null, 0];
  const where = marketName(a.market);
  const priced = price === null ? `${name} is gone` : `${name}: ${formatMoney(price)}`;
  switch (a.kind) {
    case 'below':
      return { title: priced, body: `At or below your ${formatMoney(a.value)} threshold on ${where}` };
    case 'above':
      return { title: priced, body: `At or above your ${formatMoney(a.value)} threshold on ${where}` };
    case 'rise':
      return { title: priced, body: `Up ${a.value}% or more from the last daily close on ${where}` };
    case 'fall':
      return { title: priced, body: `Down ${a.value}% or more from the last daily close on ${where}` };
    case 'deal':
      return { title: priced, body: `${a.value}% or more below its fair price on ${where}` };
    case 'supplyBelow':
    case 'supplyAbove': {
      const gone = price === null || quantity === 0;
      const title = gone ? `${name} is gone` : `${name}: ${plural(quantity, 'listed', 'listed')}`;
      const side = a.kind === 'supplyBelow' ? 'at or below' : 'at or above';
      return { title, body: `${plural(quantity, 'unit', 'units')} listed, ${side} your ${thousands(a.value)} on ${where}` };
    }
  }
}

/** Title and body of a whole-market deal: the number of deals and the market, then the deepest ones. */
function marketDealText(a: MarketAlert): { title: string; body: string } {
  const hits = a.last?.hits ?? [];
  const shown = hits.slice(0, 3).map(([key, price]) => `Item ${splitKey(key).item} at ${formatMoney(price ?? 0)}`);
  const more = hits.length > shown.length ? ` and ${hits.length - shown.length} more` : '';
  return {
    title: `${plural(hits.length, 'deal', 'deals')} on ${marketName(a.market)}`,
    body: `${a.value}% or more below fair price: ${shown.join(', ')}${more}`,
  };
}

/** Spec: the site path of an alert: `/item/<key>?m=<market>`, or `/market/alerts` for a whole-market deal. */
export const alertUrl = (a: Pick<MarketAlert, 'item' | 'market'>): string => (isMarketWide(a) ? MARKET_ALERTS_URL : `/item/${a.item}?m=${a.market}`);

/** The `market` notification of one fired alert; `ts` is the service clock. */
export function alertNotification(a: MarketAlert, ts: number): PushPayload {
  const { title, body } = isMarketWide(a) ? marketDealText(a) : singleText(a);
  return { v: 1, kind: 'market', title, body, tag: PUSH_TAG, url: alertUrl(a), ts };
}

/** The `group` notification of several alerts (those of one merge, or those that waited out the 30 s window). */
export function groupNotification(alerts: readonly MarketAlert[], count: number, ts: number): PushPayload {
  const names = [...new Set(alerts.map(alertName))];
  const shown = names.slice(0, 3).join(', ');
  const more = count > Math.min(names.length, 3) ? ` and ${count - Math.min(names.length, 3)} more` : '';
  return { v: 1, kind: 'group', title: plural(count, 'market alert', 'market alerts'), body: `${shown}${more}`, tag: PUSH_TAG, url: GROUP_URL, ts };
}

/**
 * Spec: at most one push per account per 30 s; alerts of one merge go out as one. A lone alert sent at once is
 * its own `market` notification; several, or any that waited for the window (`waited`), go out as a `group`.
 */
export function notificationFor(alerts: readonly MarketAlert[], count: number, waited: boolean, ts: number): PushPayload {
  if (!waited && count === 1 && alerts.length === 1) return alertNotification(alerts[0], ts);
  return groupNotification(alerts, count, ts);
}
