/**
 * The pieces the market routes share: links to an item's app view, the market picker, prices as people read
 * them, and the note that says how fresh the prices are (live, or the hourly view with its time and what to
 * do to see live prices).
 */
import { MARKETS } from '../../shared/domain/market';
import { marketTitle } from '../../shared/pages/item-page';
import { formatCopper } from '../../shared/pages/money';
import { type Child, h } from '../dom';
import { signInPrompt } from '../router';
import type { Session } from '../session';
import { hourlyLabel, liveHint } from './view';

export { marketTitle };

/** The app's view of an item in a market. */
export const itemHref = (key: number, market: string): string => `#/market/item?key=${key}&m=${encodeURIComponent(market)}`;

/** The live table of a market. */
export const liveHref = (market: string): string => `#/market/live?m=${encodeURIComponent(market)}`;

/** A price for people (`12g 34s 56c`), or a dash when nothing is listed. */
export const priceText = (price: number | null | undefined): string => (price === null || price === undefined ? '—' : formatCopper(price));

/** A `<select>` of the six markets, labelled "Market". */
export function marketSelect(current: string, onChange: (market: string) => void): HTMLElement {
  const select = h('select', { id: 'market-pick', name: 'market', onchange: (e: Event) => onChange((e.target as HTMLSelectElement).value) });
  for (const m of MARKETS) select.append(h('option', { value: m, selected: m === current }, marketTitle(m)));
  return h('div', { class: 'field inline' }, h('label', { for: 'market-pick' }, 'Market'), select);
}

/**
 * How fresh the prices are: live for callers with `prices.live`, else the hourly view with its time and, for
 * visitors, the sign-in prompt; for signed-in callers without the feature, how to get it.
 */
export function freshnessNote(session: Session, live: boolean, now: number): HTMLElement {
  if (live) return h('p', { class: 'freshness', 'data-view': 'live' }, h('span', { class: 'badge live' }, 'Live'), ' Prices update as uploads arrive.');
  const parts: Child[] = [h('p', { class: 'freshness', 'data-view': 'hourly' }, h('span', { class: 'badge' }, 'Hourly'), ` ${hourlyLabel(now)}.`)];
  if (session.signedIn) parts.push(h('p', { class: 'muted' }, liveHint(true)));
  else parts.push(signInPrompt(session, 'see live prices'));
  return h('div', { class: 'stack freshness-note' }, ...parts);
}

/** A table that scrolls sideways on a narrow screen: a named region keyboard users can focus and scroll. */
export const scrollTable = (label: string, table: HTMLTableElement): HTMLElement =>
  h('div', { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: 0 }, table);
