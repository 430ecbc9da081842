/** The settings port's contract, run against the DynamoDB adapter (on DynamoDB Local) and the in-memory fake. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import type { MarketAlert } from '../../shared/domain/alerts';
import type { SettingsPort } from '../../shared/ports/settings';
import { dynamoSettings } from '../../shared/store/dynamo-settings';
import { MemorySettings } from '../../shared/store/memory/settings';
import { freshTable } from '../support/engines';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const M = 'forever.normal.alliance.us';
const N = 'forever.pvp.horde.us';

const variants: Array<[string, () => Promise<SettingsPort>]> = [
  ['dynamodb', async () => dynamoSettings(await freshTable(new ManualClock(T0)))],
  ['memory', async () => new MemorySettings()],
];

const alert = (id: string, over: Partial<MarketAlert> = {}): MarketAlert => ({
  id,
  market: M,
  item: 2589,
  kind: 'below',
  value: 100,
  enabled: true,
  created: T0,
  armed: true,
  last: null,
  ...over,
});

const sub = (n: number) => ({ endpoint: `https://fcm.googleapis.com/fcm/send/e${n}`, keys: { p256dh: `p${n}`, auth: `a${n}` } });

describe.each(variants)('settings port (%s)', (_name, make) => {
  it('keeps an account’s watchlist and boards document, empty before the first write', async () => {
    const port = await make();
    expect(await port.getWatchlist('u1')).toEqual([]);
    expect(await port.getBoards('u1')).toEqual({ dashboards: [], screens: [] });
    await port.putWatchlist('u1', [3, 1, 2], T0);
    const doc = { dashboards: [{ id: 'd1', name: 'Main', widgets: [{ type: 'chart', extra: { deep: [1, 2] } }] }], screens: [] };
    await port.putBoards('u1', doc as never, T0);
    expect(await port.getWatchlist('u1')).toEqual([3, 1, 2]);
    expect(await port.getBoards('u1')).toEqual(doc);
    expect(await port.getWatchlist('u2')).toEqual([]);
  });

  it('creates alerts up to the account’s limit, lists them newest first and finds one by id in any market', async () => {
    const port = await make();
    expect(await port.createAlert('u1', alert('a1'), 2)).toBe(true);
    expect(await port.createAlert('u1', alert('a2', { market: N, created: T0 + 1, name: 'n', note: 'x' }), 2)).toBe(true);
    expect(await port.createAlert('u1', alert('a3'), 2)).toBe(false);
    expect(await port.createAlert('u2', alert('b1'), 0)).toBe(false);
    expect((await port.listAccountAlerts('u1')).map((s) => [s.alert.id, s.rev, s.remembered])).toEqual([
      ['a2', 1, []],
      ['a1', 1, []],
    ]);
    expect(await port.getAccountAlert('u1', 'a2')).toEqual({
      userId: 'u1',
      alert: alert('a2', { market: N, created: T0 + 1, name: 'n', note: 'x' }),
      remembered: [],
      rev: 1,
    });
    expect(await port.getAccountAlert('u1', 'none')).toBeNull();
    expect(await port.listAccountAlerts('u2')).toEqual([]);
  });

  it('deletes an alert once and gives its place back', async () => {
    const port = await make();
    await port.createAlert('u1', alert('a1'), 1);
    const stored = (await port.getAccountAlert('u1', 'a1'))!;
    expect(await port.deleteStoredAlert(stored)).toBe(true);
    expect(await port.deleteStoredAlert(stored)).toBe(false);
    expect(await port.createAlert('u1', alert('a2'), 1)).toBe(true);
  });

  it('replaces an alert in place (armed, deal forgotten, last kept) or moves it to another market', async () => {
    const port = await make();
    await port.createAlert('u1', alert('a1', { item: 0, kind: 'deal', name: 'old' }), 5);
    let stored = (await port.getAccountAlert('u1', 'a1'))!;
    const last: MarketAlert['last'] = { at: T0, hits: [[2589, 90, 1]] };
    expect(await port.saveEvaluation(stored, { ...stored.alert, armed: false, last }, [5, 9], null)).toBe(true);
    stored = (await port.getAccountAlert('u1', 'a1'))!;
    expect(stored).toMatchObject({ remembered: [5, 9], rev: 1, alert: { armed: false, last } });
    const replaced = await port.replaceStoredAlert(stored, {
      ...stored.alert,
      kind: 'below',
      item: 7,
      value: 5,
      name: undefined,
      note: 'new',
      armed: false,
      last: null,
    });
    expect(replaced).toEqual({ ...alert('a1', { item: 7, kind: 'below', value: 5, note: 'new' }), last });
    stored = (await port.getAccountAlert('u1', 'a1'))!;
    expect(stored).toMatchObject({ remembered: [], rev: 2 });
    const moved = await port.replaceStoredAlert(stored, { ...stored.alert, market: N });
    expect(moved?.market).toBe(N);
    expect((await port.getAccountAlert('u1', 'a1'))?.alert.market).toBe(N);
    expect((await port.getAccountAlert('u1', 'a1'))?.rev).toBe(3);
    expect(await port.replaceStoredAlert(stored, { ...stored.alert, market: N })).toBeNull();
  });

  it('saves an evaluation only at the revision it read, with its firing recorded for the fan-out', async () => {
    const port = await make();
    await port.createAlert('u1', alert('a1'), 5);
    await port.createAlert('u2', alert('b1', { enabled: false }), 5);
    const [evaluated] = await port.enabledMarketAlerts(M);
    expect(evaluated.alert.id).toBe('a1');
    const next = { ...evaluated.alert, armed: false, last: { at: T0 + 5, hits: [] } };
    const fired = { userId: 'u1', market: M, at: T0 + 5, alert: next, seq: 7 };
    expect(await port.saveEvaluation(evaluated, next, [], fired)).toBe(true);
    expect(await port.firedAt(M, T0 + 5)).toEqual([fired]);
    expect(await port.firedAt(M, T0 + 6)).toEqual([]);
    const edited = (await port.getAccountAlert('u1', 'a1'))!;
    await port.replaceStoredAlert(edited, { ...edited.alert, value: 1 });
    expect(await port.saveEvaluation(edited, next, [], null)).toBe(false);
  });

  it('keeps an account’s push subscriptions, oldest first, at most `max`, an endpoint owned by one account', async () => {
    const port = await make();
    await port.putSubscription('u1', sub(1), { market: false }, T0, 2);
    await port.putSubscription('u1', sub(2), undefined, T0 + 1, 2);
    await port.putSubscription('u1', sub(1), undefined, T0 + 2, 2);
    expect(await port.listSubscriptions('u1')).toEqual([
      { ...sub(1), prefs: { market: false }, created: T0 },
      { ...sub(2), prefs: {}, created: T0 + 1 },
    ]);
    await port.putSubscription('u1', sub(3), undefined, T0 + 3, 2);
    expect((await port.listSubscriptions('u1')).map((s) => s.endpoint)).toEqual([sub(2).endpoint, sub(3).endpoint]);
    await port.putSubscription('u2', sub(2), { quietHours: { start: '22:00', end: '07:00', tz: 'UTC' } }, T0 + 4, 2);
    expect((await port.listSubscriptions('u1')).map((s) => s.endpoint)).toEqual([sub(3).endpoint]);
    expect(await port.listSubscriptions('u2')).toEqual([{ ...sub(2), prefs: { quietHours: { start: '22:00', end: '07:00', tz: 'UTC' } }, created: T0 + 4 }]);
    expect(await port.deleteSubscription('u1', sub(2).endpoint)).toBe(false);
    expect(await port.deleteSubscription('u2', sub(2).endpoint)).toBe(true);
    expect(await port.listSubscriptions('u2')).toEqual([]);
  });

  it('writes the push window state only over the revision it read', async () => {
    const port = await make();
    const empty = await port.getPushState('u1');
    expect(empty).toEqual({ lastSent: null, pending: [], pendingCount: 0, flushAt: null, rev: 0 });
    const pending = Array.from({ length: 25 }, (_, i) => alert(`p${i}`));
    expect(await port.putPushState('u1', { ...empty, pending, pendingCount: 25, flushAt: T0 + 30_000 }, T0)).toBe(true);
    expect(await port.putPushState('u1', { ...empty, lastSent: T0 }, T0)).toBe(false);
    const stored = await port.getPushState('u1');
    expect(stored).toMatchObject({ pendingCount: 25, flushAt: T0 + 30_000, rev: 1 });
    expect(stored.pending.map((a) => a.id)).toEqual(pending.slice(-20).map((a) => a.id));
    expect(await port.putPushState('u1', { ...stored, lastSent: T0, pending: [], flushAt: null }, T0)).toBe(true);
    expect(await port.getPushState('u1')).toMatchObject({ lastSent: T0, pending: [], flushAt: null, rev: 2 });
  });
});
