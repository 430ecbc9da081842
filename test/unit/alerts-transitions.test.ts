import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALERT_REPEAT_MS,
  type AlertHit,
  DEAL_HITS_MAX,
  type DealCandidate,
  evaluateMarketDeal,
  evaluateSingle,
  type MarketAlert,
  marketDeals,
} from '../../shared/domain/alerts';

const MARKET = 'forever.pvp.horde.us';
const NOW = 1_800_000_000_000;
const single = (over: Partial<MarketAlert> = {}): MarketAlert => ({
  market: MARKET,
  item: 2589,
  kind: 'below',
  value: 100,
  enabled: true,
  id: 'a1',
  created: 1,
  armed: true,
  last: null,
  ...over,
});
const dealAlert = (over: Partial<MarketAlert> = {}): MarketAlert => single({ item: 0, kind: 'deal', value: 20, ...over });
const hit: AlertHit = [2589, 90, 4];
const deal = (key: number, price: number, fair: number): DealCandidate => ({ hit: [key, price, 1], fair });

describe('single-item alert state table', () => {
  it('fires when armed, holding and never fired: not armed, last = {at: now, hits: [[item, price, quantity]]}', () => {
    const o = evaluateSingle(single(), true, hit, NOW);
    expect(o.fired).toBe(true);
    expect(o.changed).toBe(true);
    expect(o.alert.armed).toBe(false);
    expect(o.alert.last).toEqual({ at: NOW, hits: [hit] });
  });

  it('fires again once exactly an hour passed since the last firing', () => {
    const o = evaluateSingle(single({ last: { at: NOW - ALERT_REPEAT_MS, hits: [] } }), true, hit, NOW);
    expect(o.fired).toBe(true);
  });

  it('stays unchanged when holding inside the hour (armed or not)', () => {
    const recent = { at: NOW - ALERT_REPEAT_MS + 1, hits: [hit] };
    for (const armed of [true, false]) {
      const a = single({ armed, last: recent });
      const o = evaluateSingle(a, true, hit, NOW);
      expect(o).toEqual({ alert: a, remembered: [], fired: false, changed: false });
    }
  });

  it('stays unchanged when holding while not armed, however old the last firing', () => {
    const a = single({ armed: false, last: { at: NOW - 10 * ALERT_REPEAT_MS, hits: [hit] } });
    expect(evaluateSingle(a, true, hit, NOW).changed).toBe(false);
  });

  it('re-arms when the condition stops holding, keeping last', () => {
    const last = { at: NOW - 5, hits: [hit] };
    const o = evaluateSingle(single({ armed: false, last }), false, hit, NOW);
    expect(o).toMatchObject({ fired: false, changed: true });
    expect(o.alert).toMatchObject({ armed: true, last });
    expect(evaluateSingle(single(), false, hit, NOW).changed).toBe(false);
  });

  it('fires once per hour at most over any sequence of merges (property)', () => {
    const steps = fc.array(fc.tuple(fc.integer({ min: 1, max: 2 * ALERT_REPEAT_MS }), fc.boolean()), { maxLength: 60 });
    fc.assert(
      fc.property(steps, (s) => {
        let a = single();
        let t = NOW;
        const firings: number[] = [];
        for (const [dt, holds] of s) {
          t += dt;
          const o = evaluateSingle(a, holds, hit, t);
          if (o.fired) firings.push(t);
          a = o.alert;
        }
        return firings.every((f, i) => i === 0 || f - firings[i - 1] >= ALERT_REPEAT_MS);
      }),
    );
  });
});

describe('whole-market deal alert', () => {
  it('fires with the items holding now, deepest discount first then by item key, at most 20', () => {
    const holding = Array.from({ length: 25 }, (_, i) => deal(1000 - i, 50 + (i % 5), 100));
    const o = evaluateMarketDeal(dealAlert(), [], holding, NOW);
    expect(o.fired).toBe(true);
    expect(o.alert.armed).toBe(true);
    expect(o.alert.last?.at).toBe(NOW);
    const hits = o.alert.last?.hits ?? [];
    expect(hits).toHaveLength(DEAL_HITS_MAX);
    // price 50 (5 keys) first, ascending keys; then 51, ...
    expect(hits.slice(0, 5).map((h) => h[0])).toEqual([980, 985, 990, 995, 1000]);
    expect(hits.map((h) => h[1])).toEqual([...Array(5).fill(50), ...Array(5).fill(51), ...Array(5).fill(52), ...Array(5).fill(53)]);
    expect(o.remembered).toEqual(holding.map((c) => c.hit[0]).sort((a, b) => a - b));
  });

  it('orders by discount relative to each item’s fair price, exactly', () => {
    const o = evaluateMarketDeal(dealAlert(), [], [deal(1, 80, 100), deal(2, 150, 200), deal(3, 7, 10), deal(4, 2, 3)], NOW);
    // ratios 0.8, 0.75, 0.7, 0.666…
    expect(o.alert.last?.hits.map((h) => h[0])).toEqual([4, 3, 2, 1]);
  });

  it('does not fire again for items already remembered; a newcomer fires alone', () => {
    const first = evaluateMarketDeal(dealAlert(), [], [deal(1, 50, 100), deal(2, 60, 100)], NOW);
    const again = evaluateMarketDeal(first.alert, first.remembered, [deal(1, 50, 100), deal(2, 60, 100)], NOW + 1);
    expect(again).toMatchObject({ fired: false, changed: false });
    const newcomer = evaluateMarketDeal(first.alert, first.remembered, [deal(1, 50, 100), deal(2, 60, 100), deal(3, 70, 100)], NOW + 2);
    expect(newcomer.fired).toBe(true);
    expect(newcomer.alert.last).toEqual({ at: NOW + 2, hits: [[3, 70, 1]] });
    expect(newcomer.remembered).toEqual([1, 2, 3]);
  });

  it('forgets items that stop holding, so they fire again when they return (no hourly limit)', () => {
    const first = evaluateMarketDeal(dealAlert(), [], [deal(1, 50, 100)], NOW);
    const gone = evaluateMarketDeal(first.alert, first.remembered, [], NOW + 1);
    expect(gone).toMatchObject({ fired: false, changed: true, remembered: [] });
    expect(gone.alert.last).toEqual(first.alert.last);
    const back = evaluateMarketDeal(gone.alert, gone.remembered, [deal(1, 50, 100)], NOW + 2);
    expect(back.fired).toBe(true);
  });

  it('hits are new items only, capped at 20, and the set becomes the items holding now (property)', () => {
    const keys = fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 60 });
    fc.assert(
      fc.property(keys, keys, (remembered, now) => {
        const before = [...remembered].sort((a, b) => a - b);
        const o = evaluateMarketDeal(
          dealAlert(),
          before,
          now.map((k) => deal(k, k % 7, 10)),
          NOW,
        );
        const fresh = now.filter((k) => !remembered.includes(k));
        const hits = o.fired ? (o.alert.last?.hits ?? []) : [];
        return (
          o.fired === fresh.length > 0 &&
          hits.length === Math.min(DEAL_HITS_MAX, fresh.length) &&
          hits.every((h) => fresh.includes(h[0])) &&
          JSON.stringify(o.remembered) === JSON.stringify([...now].sort((a, b) => a - b))
        );
      }),
    );
  });
});

describe('marketDeals', () => {
  it('lists items with a price at or below fair × (100 − value)%, skipping gone rows and items without fair', () => {
    const rows = new Map([
      [1, { price: 80, quantity: 3, at: 0 }],
      [2, { price: 81, quantity: 3, at: 0 }],
      [3, { price: null, quantity: 0, at: 0 }],
      [4, { price: 1, quantity: 9, at: 0 }],
    ]);
    const fair = (k: number) => (k === 4 ? null : 100);
    expect(marketDeals(rows, fair, 20)).toEqual([{ hit: [1, 80, 3], fair: 100 }]);
  });
});
