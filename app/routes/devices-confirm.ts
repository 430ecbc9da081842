/**
 * `#/devices/confirm?code=…`: binds a desktop app's pairing code to the signed-in account (spec api.md
 * Account, POST /api/v1/devices/confirm). The desktop app can open this link with its code filled in; spaces
 * and dashes are accepted as typed; 404 and 410 read as "no such code" and "expired: pair again".
 */
import { normalizePairCode } from '../../shared/domain/pairing';
import { field, h, say, status } from '../dom';
import { explain } from '../messages';
import type { AppRoute } from '../router';

export const devicesConfirmRoute: AppRoute = {
  path: '/devices/confirm',
  title: 'Confirm a device',
  signedIn: true,
  render({ session, query }) {
    const input = h('input', { name: 'code', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', inputmode: 'text' });
    input.value = query.get('code') ?? '';
    const line = status();
    const button = h('button', { type: 'submit', class: 'primary' }, 'Confirm');
    const form = h(
      'form',
      {
        class: 'card stack',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          if (normalizePairCode(input.value) === null) {
            say(line, 'A code is 8 letters and digits, as your desktop app shows it (spaces and dashes are fine): check it and try again.', 'error');
            input.focus();
            return;
          }
          button.disabled = true;
          say(line, 'Confirming…');
          try {
            const { device } = await session.api.confirmDevice(input.value);
            say(line, `Paired: “${device.name}” is now signed in to your account. You can return to the desktop app.`, 'ok');
          } catch (err) {
            say(line, explain(err), 'error');
          } finally {
            button.disabled = false;
          }
        },
      },
      h('p', {}, 'Type the code your desktop app shows to let it upload and read with your account.'),
      field('Code', input, 'Eight letters and digits, e.g. ABCD-EFGH.'),
      h('div', { class: 'actions' }, button),
      line,
    );
    return h('div', { class: 'stack' }, form, h('p', {}, h('a', { href: '#/devices' }, 'Your devices')));
  },
};
