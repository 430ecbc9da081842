/**
 * `#/account`: who is signed in, their plan and features, the contributor window and recent contributions
 * (spec api.md Account: GET /api/v1/me, GET /api/v1/contributions), API keys (created and revoked here, the
 * spec says, through the identity provider: app/auth), devices, and signing out.
 */
import type { Me } from '../../shared/client/http-client';
import type { AuthProvider } from '../auth';
import { field, h, say, section, status, when } from '../dom';
import { explain } from '../messages';
import type { AppRoute } from '../router';

const PLAN_ORDER = ['premium', 'contributor', 'free', 'anon'];

/** The plan people recognise: the highest role held. */
export const planOf = (roles: readonly string[]): string => PLAN_ORDER.find((r) => roles.includes(r)) ?? roles[0] ?? 'anon';

function overview(me: Me, now: number): HTMLElement {
  const until = me.contributor.until;
  const window =
    until === null
      ? 'Not a contributor: upload a complete book from the desktop app to earn 14 days of contributor features.'
      : until > now
        ? `Contributor until ${when(until)}.`
        : `Your contributor window ended ${when(until)}: upload again to renew it.`;
  return section(
    'Plan',
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Signed in as'),
      h('dd', {}, me.user?.email ?? me.user?.id ?? ''),
      h('dt', {}, 'Plan'),
      h('dd', { 'data-plan': planOf(me.roles) }, planOf(me.roles)),
      h('dt', {}, 'Contributor window'),
      h('dd', {}, window),
      h('dt', {}, 'Credited uploads (7 days)'),
      h('dd', {}, me.contributor.scans7d),
      h('dt', {}, 'Features'),
      h('dd', {}, h('ul', { class: 'pills', 'aria-label': 'Features' }, ...me.features.map((f) => h('li', {}, h('span', { class: 'pill' }, f))))),
    ),
  );
}

async function contributions(ctx: Parameters<AppRoute['render']>[0]): Promise<HTMLElement> {
  try {
    const { scans } = await ctx.session.api.contributions();
    if (!scans.length) return section('Recent contributions', h('p', {}, 'No uploads in the last 30 days.'));
    const rows = scans
      .slice(0, 20)
      .map((s) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, when(s.at)),
          h('td', {}, s.market),
          h('td', {}, s.items),
          h('td', {}, s.complete ? 'yes' : 'no'),
          h('td', {}, s.credited ? 'credited' : `not credited${s.reason ? ` (${s.reason})` : ''}`),
        ),
      );
    return section(
      'Recent contributions',
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          {},
          h('thead', {}, h('tr', {}, ...['Observed', 'Market', 'Items', 'Complete', 'Credit'].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, ...rows),
        ),
      ),
    );
  } catch (err) {
    return section('Recent contributions', h('p', { class: 'status', 'data-tone': 'error' }, explain(err)));
  }
}

async function apiKeys(auth: AuthProvider, me: Me): Promise<HTMLElement> {
  if (!me.features.includes('api.keys')) return section('API keys', h('p', {}, 'Your plan does not include API keys.'));
  const line = status();
  const list = h('ul', { class: 'keys', 'aria-label': 'API keys' });
  const secret = h('div', { class: 'secret', hidden: true });
  const draw = async () => {
    try {
      const keys = (await auth.apiKeys.list()).filter((k) => !k.revoked);
      list.replaceChildren(
        ...(keys.length
          ? keys.map((k) =>
              h(
                'li',
                { class: 'row' },
                h('span', {}, h('strong', {}, k.name), ' ', h('span', { class: 'muted' }, `created ${when(k.created)}`)),
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Revoke ${k.name}`,
                    onclick: async () => {
                      try {
                        await auth.apiKeys.revoke(k.id);
                        say(line, `Revoked “${k.name}”: the service refuses it within 5 minutes (it keeps a verified key that long).`, 'ok');
                        await draw();
                      } catch (err) {
                        say(line, explain(err), 'error');
                      }
                    },
                  },
                  'Revoke',
                ),
              ),
            )
          : [h('li', {}, 'No API keys yet.')]),
      );
    } catch (err) {
      say(line, explain(err), 'error');
    }
  };
  const name = h('input', { name: 'key-name', maxlength: 60, required: true });
  const form = h(
    'form',
    {
      class: 'stack',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const label = name.value.trim();
        if (!label) {
          say(line, 'Give the key a name (where it will be used), then create it.', 'error');
          return;
        }
        try {
          const made = await auth.apiKeys.create(label);
          secret.hidden = false;
          secret.replaceChildren(
            h('p', {}, `Your new key “${made.name}”. Copy it now: it is not shown again.`),
            h('code', { class: 'key', 'aria-label': 'New API key' }, made.secret),
          );
          name.value = '';
          say(line, 'Key created.', 'ok');
          await draw();
        } catch (err) {
          say(line, explain(err), 'error');
        }
      },
    },
    field('Key name', name, 'Where the key will be used, e.g. “spreadsheet”.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create key')),
  );
  await draw();
  return section('API keys', h('p', {}, 'Keys let your own programs read the API as you (send them as Authorization: Bearer).'), list, form, secret, line);
}

export const accountRoute: AppRoute = {
  path: '/account',
  title: 'Account',
  signedIn: true,
  async render(ctx) {
    const { session } = ctx;
    await session.refresh();
    const me = session.me;
    const line = status();
    const signOut = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          try {
            await session.auth.signOut();
            location.assign('/');
          } catch (err) {
            say(line, explain(err), 'error');
          }
        },
      },
      'Sign out',
    );
    const [recent, keys] = await Promise.all([contributions(ctx), apiKeys(session.auth, me)]);
    return h(
      'div',
      { class: 'stack' },
      overview(me, me.now),
      recent,
      keys,
      section('Devices', h('p', {}, h('a', { href: '#/devices' }, 'Your devices'), ' · ', h('a', { href: '#/devices/confirm' }, 'Confirm a code'))),
      h('div', { class: 'actions' }, signOut),
      line,
    );
  },
};
