/**
 * Web Push in the browser, its pure rules (issue 24 point 6): which page a notification's click opens (spec
 * Events: `url` is a site path; a group opens `#/market/alerts`, one alert its item page, a whole-market deal
 * the alerts route), never another origin; the payload the worker reads; the prefs form ↔ PushPrefs, checked
 * against the route's schema; the VAPID key's bytes.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS_PAGE, openUrlOf, parsePayload } from '../../app/push/notification-rules';
import { formToPrefs, keyBytes, prefsToForm } from '../../app/push/prefs';
import { PushPrefs } from '../../shared/api/push.schemas';
import { alertUrl, GROUP_URL, notificationFor } from '../../shared/domain/push-message';
import { validZone } from '../../shared/domain/push-subscription';

const ORIGIN = 'https://markets.example';

describe('a notification click', () => {
  it('opens the item page of one alert, the alerts route for a group and for a whole-market deal', () => {
    const one = alertUrl({ item: 2589, market: 'forever.pvp.horde.us' });
    expect(openUrlOf(one, ORIGIN)).toBe(`${ORIGIN}/item/2589?m=forever.pvp.horde.us`);
    expect(openUrlOf(GROUP_URL, ORIGIN)).toBe(`${ORIGIN}/#/market/alerts`);
    // The spec's url of a whole-market deal is `/market/alerts`, which the site serves as the app's hash route.
    expect(openUrlOf(alertUrl({ item: 0, market: 'forever.pvp.horde.us' }), ORIGIN)).toBe(`${ORIGIN}${ALERTS_PAGE}`);
  });

  it('never opens another origin', () => {
    for (const url of ['https://evil.example/x', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '', 'item/1'])
      expect(openUrlOf(url, ORIGIN)).toBe(`${ORIGIN}${ALERTS_PAGE}`);
  });
});

describe('the push payload', () => {
  it('reads what the service sends', () => {
    const alert = {
      id: 'a1',
      market: 'forever.normal.alliance.us',
      item: 2589,
      kind: 'below' as const,
      value: 500,
      enabled: true,
      created: 1,
      armed: false,
      last: { at: 5, hits: [[2589, 400, 20] as [number, number, number]] },
    };
    const sent = notificationFor([alert], 1, false, 123);
    expect(parsePayload(JSON.stringify(sent))).toEqual(sent);
  });

  it('ignores pushes that are not the service’s payload', () => {
    expect(parsePayload('hello')).toBeNull();
    expect(parsePayload(JSON.stringify({ v: 2, title: 'x', url: '/' }))).toBeNull();
    expect(parsePayload(JSON.stringify({ v: 1, title: 'x' }))).toBeNull();
  });
});

describe('notification prefs', () => {
  it('makes PushPrefs the route accepts: market alerts on or off, quiet hours in a time zone or none', () => {
    const quiet = formToPrefs({ market: true, quiet: true, start: '22:00', end: '07:00', tz: 'Europe/Berlin' }, validZone);
    expect(quiet).toEqual({ ok: true, prefs: { market: true, quietHours: { start: '22:00', end: '07:00', tz: 'Europe/Berlin' } } });
    const none = formToPrefs({ market: false, quiet: false, start: 'x', end: 'y', tz: '' }, validZone);
    expect(none).toEqual({ ok: true, prefs: { market: false, quietHours: null } });
    for (const r of [quiet, none]) if (r.ok) expect(PushPrefs.safeParse(r.prefs).success).toBe(true);
  });

  it('says what to correct in quiet hours', () => {
    const bad = (over: object) => formToPrefs({ market: true, quiet: true, start: '22:00', end: '07:00', tz: 'UTC', ...over }, validZone);
    expect(bad({ start: '25:00' })).toEqual({ ok: false, error: 'Enter quiet hours as times of day, for example 22:00 to 07:00.' });
    expect(bad({ end: '22:00' })).toEqual({ ok: false, error: 'Quiet hours need different start and end times.' });
    expect(bad({ tz: 'Mars/Olympus' })).toEqual({ ok: false, error: '“Mars/Olympus” is not a time zone: choose one such as Europe/Berlin.' });
  });

  it('edits stored prefs, with defaults for a new subscription', () => {
    expect(prefsToForm(null, 'Europe/Paris')).toEqual({ market: true, quiet: false, start: '22:00', end: '07:00', tz: 'Europe/Paris' });
    expect(prefsToForm({ market: false, quietHours: { start: '23:30', end: '06:00', tz: 'UTC' } }, 'Europe/Paris')).toEqual({
      market: false,
      quiet: true,
      start: '23:30',
      end: '06:00',
      tz: 'UTC',
    });
  });

  it('turns a base64url VAPID key into its 65 bytes', () => {
    const raw = Buffer.alloc(65, 7);
    raw[0] = 4;
    expect(Buffer.from(keyBytes(raw.toString('base64url')))).toEqual(raw);
  });
});
