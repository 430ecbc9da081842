/** `#/sign-in?redirect=<path>`: hands over to the identity provider, coming back to `redirect` (default: the account). */
import { h } from '../dom';
import { explain } from '../messages';
import type { AppRoute } from '../router';

export const signInRoute: AppRoute = {
  path: '/sign-in',
  title: 'Sign in',
  signedIn: false,
  async render({ session, query }) {
    const target = query.get('redirect');
    const back = target?.startsWith('/') && !target.startsWith('//') ? target : '/#/account';
    if (session.signedIn) {
      location.replace(back);
      return h('p', {}, 'You are signed in.');
    }
    try {
      await session.auth.signIn(back);
      return h('p', {}, 'Opening the sign-in page…');
    } catch (err) {
      return h('p', { class: 'status', 'data-tone': 'error', role: 'alert' }, explain(err));
    }
  },
};
