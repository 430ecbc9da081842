/**
 * `#/market/push`: notifications on this browser (spec "Web Push (signed in)"): turn them on with the
 * deployment's VAPID key, set the prefs (market alerts on or off, quiet hours in a time zone), and list the
 * account's subscriptions with this browser's marked, each removable. Fired alerts then arrive as
 * notifications shown by the service worker (app/sw.ts), which opens the alert's page on a click.
 */

import { explainWrite } from '../alerts/settings-messages';
import { h, say, status, when } from '../dom';
import { currentSubscription, PushRefused, savePrefs, subscribe, unsubscribe, unsupported } from '../push/browser-push';
import { formToPrefs, type PrefsForm, prefsToForm } from '../push/prefs';
import type { AppRoute } from '../router';

const validZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.length > 0;
  } catch {
    return false;
  }
};

const endpointHost = (endpoint: string): string => {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint.slice(0, 40);
  }
};

/** What the last change did, said on the page drawn after it (the redraw replaces the status line). */
let flash: string | null = null;

export const marketPushRoute: AppRoute = {
  path: '/market/push',
  title: 'Notifications',
  signedIn: true,
  async render({ session, redraw }) {
    const [{ publicKey }, { subscriptions }] = await Promise.all([session.api.pushKey(), session.api.pushSubscriptions()]);
    const line = status();
    if (flash) say(line, flash, 'ok');
    flash = null;
    if (publicKey === null) return h('p', {}, 'Notifications are not set up on this deployment: alerts still reach the alerts page while it is open.');
    const why = unsupported();
    const mine = why ? null : await currentSubscription();
    const stored = mine ? subscriptions.find((s) => s.endpoint === mine.endpoint) : undefined;
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const f: PrefsForm = prefsToForm(stored?.prefs ?? null, zone);

    const market = h('input', { id: 'push-market', type: 'checkbox', checked: f.market });
    const quiet = h('input', { id: 'push-quiet', type: 'checkbox', checked: f.quiet });
    const start = h('input', { id: 'push-start', type: 'time', value: f.start });
    const end = h('input', { id: 'push-end', type: 'time', value: f.end });
    const tz = h('input', { id: 'push-tz', value: f.tz, autocomplete: 'off' });
    const quietFields = h(
      'fieldset',
      { class: 'stack', disabled: !f.quiet },
      h('legend', {}, 'Quiet hours (notifications in them are dropped, not delayed)'),
      h('div', { class: 'field' }, h('label', { for: start.id }, 'From'), start),
      h('div', { class: 'field' }, h('label', { for: end.id }, 'Until'), end),
      h('div', { class: 'field' }, h('label', { for: tz.id }, 'Time zone'), tz),
    );
    quiet.addEventListener('change', () => {
      quietFields.disabled = !quiet.checked;
    });
    const read = () => formToPrefs({ market: market.checked, quiet: quiet.checked, start: start.value, end: end.value, tz: tz.value.trim() }, validZone);

    const act = async (doing: string, work: () => Promise<unknown>, done: string) => {
      say(line, doing);
      try {
        await work();
        flash = done;
        redraw();
      } catch (err) {
        say(line, err instanceof PushRefused ? err.message : explainWrite(err, 'push'), 'error');
      }
    };
    const submit = h('button', { type: 'submit', class: 'primary' }, mine ? 'Save settings' : 'Turn on notifications');
    const form = h(
      'form',
      { class: 'card stack', 'aria-label': 'Notification settings' },
      h('div', { class: 'field check' }, market, h('label', { for: market.id }, 'Notify me when my alerts fire')),
      h('div', { class: 'field check' }, quiet, h('label', { for: quiet.id }, 'Keep quiet hours')),
      quietFields,
      why ? h('p', { class: 'status', 'data-tone': 'error' }, why) : submit,
      line,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const r = read();
      if (!r.ok) {
        say(line, r.error, 'error');
        return;
      }
      if (mine) void act('Saving…', () => savePrefs(session.api, r.prefs), 'Settings saved.');
      else void act('Turning on notifications…', () => subscribe(session.api, publicKey, r.prefs), 'Notifications are on for this browser.');
    });

    const rows = subscriptions.map((s) => {
      const here = s.endpoint === mine?.endpoint;
      const label = here ? 'This browser' : `Another browser (${endpointHost(s.endpoint)})`;
      return h(
        'li',
        { class: 'row', 'data-here': String(here) },
        h('span', {}, `${label}, since ${when(s.created)}${s.prefs.quietHours ? `, quiet ${s.prefs.quietHours.start}–${s.prefs.quietHours.end}` : ''}`),
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Remove ${label.toLowerCase()}`,
            onclick: () => void act('Removing…', () => unsubscribe(session.api, s.endpoint), 'Removed.'),
          },
          'Remove',
        ),
      );
    });
    return h(
      'div',
      { class: 'stack' },
      form,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'push-subs' },
        h('h2', { id: 'push-subs' }, 'Subscribed browsers'),
        rows.length ? h('ul', { class: 'subscriptions' }, ...rows) : h('p', {}, 'No browser receives notifications yet.'),
      ),
      h('p', {}, h('a', { href: '#/market/alerts' }, 'Back to your alerts')),
    );
  },
};
