import { describe, expect, it } from 'vitest';
import type { MarketAlert } from '../../shared/domain/alerts';
import { itemKey } from '../../shared/domain/item-key';
import { alertNotification, formatMoney, groupNotification, marketName, notificationFor } from '../../shared/domain/push-message';

const TS = 1_800_000_000_000;
const alert = (over: Partial<MarketAlert> = {}): MarketAlert => ({
  market: 'forever.normal.alliance.us',
  item: 2589,
  kind: 'below',
  value: 20000,
  enabled: true,
  id: 'a1',
  created: 1,
  armed: false,
  last: { at: TS, hits: [[2589, 15050, 12]] },
  name: 'Linen Cloth',
  ...over,
});

describe('push payloads', () => {
  it('a single-item alert: name and price, the threshold and market, the item page', () => {
    expect(alertNotification(alert(), TS)).toEqual({
      v: 1,
      kind: 'market',
      title: 'Linen Cloth: 1g 50s 50c',
      body: 'At or below your 2g threshold on Normal Alliance (US)',
      tag: 'ahf-market',
      url: '/item/2589?m=forever.normal.alliance.us',
      ts: TS,
    });
  });

  it('names an unnamed alert `Item <item id>`, also for a suffix key', () => {
    const key = itemKey(2589, 7);
    const n = alertNotification(alert({ name: undefined, item: key, last: { at: TS, hits: [[key, 100, 1]] } }), TS);
    expect(n.title).toBe('Item 2589: 1s');
    expect(n.url).toBe(`/item/${key}?m=forever.normal.alliance.us`);
  });

  it('says what crossed for every single-item kind', () => {
    const body = (kind: MarketAlert['kind'], value: number) => alertNotification(alert({ kind, value }), TS).body;
    expect(body('above', 10000)).toBe('At or above your 1g threshold on Normal Alliance (US)');
    expect(body('rise', 15)).toBe('Up 15% or more from the last daily close on Normal Alliance (US)');
    expect(body('fall', 15)).toBe('Down 15% or more from the last daily close on Normal Alliance (US)');
    expect(body('deal', 30)).toBe('30% or more below its fair price on Normal Alliance (US)');
  });

  it('supply alerts use a quantity-listed or is-gone title', () => {
    const listed = alertNotification(alert({ kind: 'supplyBelow', value: 20, last: { at: TS, hits: [[2589, 15050, 12]] } }), TS);
    expect(listed.title).toBe('Linen Cloth: 12 listed');
    expect(listed.body).toBe('12 units listed, at or below your 20 on Normal Alliance (US)');
    const gone = alertNotification(alert({ kind: 'supplyBelow', value: 0, last: { at: TS, hits: [[2589, null, 0]] } }), TS);
    expect(gone.title).toBe('Linen Cloth is gone');
    const above = alertNotification(alert({ kind: 'supplyAbove', value: 1000, market: 'forever.rp.horde.us', last: { at: TS, hits: [[2589, 5, 1500]] } }), TS);
    expect(above.body).toBe('1,500 units listed, at or above your 1,000 on RP Horde (US)');
  });

  it('a whole-market deal: the number of deals and the market, the alerts page', () => {
    const hits: MarketAlert['last'] = {
      at: TS,
      hits: [
        [2589, 100, 1],
        [2592, 20000, 2],
        [2996, 5, 3],
        [4306, 7, 4],
      ],
    };
    const n = alertNotification(alert({ item: 0, kind: 'deal', value: 25, market: 'forever.pvp.horde.us', last: hits }), TS);
    expect(n).toMatchObject({ kind: 'market', title: '4 deals on PvP Horde (US)', url: '/market/alerts' });
    expect(n.body).toBe('25% or more below fair price: Item 2589 at 1s, Item 2592 at 2g, Item 2996 at 5c and 1 more');
    const one = alertNotification(alert({ item: 0, kind: 'deal', last: { at: TS, hits: [[2589, 1, 1]] } }), TS);
    expect(one.title).toBe('1 deal on Normal Alliance (US)');
  });

  it('a group: the count in the title, the alerts page as url', () => {
    const g = groupNotification([alert(), alert({ id: 'b', name: 'Wool Cloth' }), alert({ id: 'c', name: 'Wool Cloth' })], 3, TS);
    expect(g).toEqual({
      v: 1,
      kind: 'group',
      title: '3 market alerts',
      body: 'Linen Cloth, Wool Cloth and 1 more',
      tag: 'ahf-market',
      url: '/#/market/alerts',
      ts: TS,
    });
  });

  it('a lone alert sent at once is a market notification; several, or one that waited, a group', () => {
    expect(notificationFor([alert()], 1, false, TS).kind).toBe('market');
    expect(notificationFor([alert()], 1, true, TS)).toMatchObject({ kind: 'group', title: '1 market alert' });
    expect(notificationFor([alert(), alert({ id: 'b' })], 2, false, TS).kind).toBe('group');
  });

  it('every url is a site path', () => {
    for (const n of [alertNotification(alert(), TS), alertNotification(alert({ item: 0, kind: 'deal' }), TS), groupNotification([alert()], 1, TS)]) {
      expect(n.url.startsWith('/')).toBe(true);
    }
  });
});

describe('texts', () => {
  it('formats copper as gold, silver and copper', () => {
    expect(formatMoney(0)).toBe('0c');
    expect(formatMoney(5)).toBe('5c');
    expect(formatMoney(10000)).toBe('1g');
    expect(formatMoney(1234567890)).toBe('123,456g 78s 90c');
    expect(formatMoney(Number.MAX_SAFE_INTEGER)).toBe('900,719,925,474g 9s 91c');
  });

  it('names markets for people', () => {
    expect(marketName('forever.normal.horde.us')).toBe('Normal Horde (US)');
    expect(marketName('forever.pvp.alliance.us')).toBe('PvP Alliance (US)');
  });
});
