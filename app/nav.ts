/**
 * The signed-in parts of the site header (the server-rendered pages' `header.site nav`): a "Sign in" link for
 * visitors (left out on an app route, whose own prompt is the one sign-in control there), and the app's
 * routes for a signed-in caller.
 */
import { h } from './dom';
import type { Session } from './session';

/** Fills the header's account links for the session; `onAppRoute`: an app route is showing. */
export function drawNav(nav: Element, session: Session | null, onAppRoute: boolean): void {
  nav.querySelector('.account-nav')?.remove();
  const links = h('span', { class: 'account-nav' });
  if (session?.signedIn) {
    for (const [href, text] of [
      ['/#/market/watch', 'Watchlist'],
      ['/#/market/alerts', 'Alerts'],
      ['/#/market/boards', 'Boards'],
      ['/#/account', 'Account'],
    ])
      links.append(h('a', { href }, text));
  } else if (session && !onAppRoute) {
    links.append(h('a', { href: `/#/sign-in?redirect=${encodeURIComponent(location.pathname + location.search)}` }, 'Sign in'));
  }
  nav.append(links);
}
