/**
 * The market routes' pure rules (issue 24 point 4): item search over the search index, the resolutions a
 * caller's features allow, the hourly view's time, candles as chart series, the six markets' overview, one
 * item compared across them and the live table's newest rows.
 */
import { describe, expect, it } from 'vitest';
import { describeSeries, toSeries } from '../../app/market/chart-data';
import { compareAcross, overviewOf, type Row, recentRows } from '../../app/market/markets';
import { entriesOf, namesOf, type SearchEntry, searchItems } from '../../app/market/search';
import { allowedResolutions, hourlyCut, hourlyLabel, liveHint, pickResolution, readsLive } from '../../app/market/view';
import { MARKETS } from '../../shared/domain/market';
import { ROLE_FEATURES } from '../../shared/domain/roles';

const INDEX: SearchEntry[] = [
  [2770, 'Copper Ore', 1, 'inv_ore_copper_01', 7, 7],
  [2775, 'Silver Ore', 2, 'inv_ore_silver_01', 7, 7],
  [2589, 'Linen Cloth', 1, 'inv_fabric_linen_01', 7, 5],
  [2840, 'Copper Bar', 1, 'inv_ingot_02', 7, 7],
  [9999, 'Ore Sample of Copper', 1, 0, 7, 7],
  [4306, 'Silk Cloth', 1, 0, 7, 5],
].sort((a, b) => (a[1] as string).localeCompare(b[1] as string)) as SearchEntry[];

describe('item search over the search index', () => {
  it('finds items whose name holds every word, in any case', () => {
    expect(searchItems(INDEX, 'copper').map((h) => h.name)).toEqual(['Copper Bar', 'Copper Ore', 'Ore Sample of Copper']);
    expect(searchItems(INDEX, '  ORE   copper ').map((h) => h.key)).toEqual([2770, 9999]);
    expect(searchItems(INDEX, 'cloth silk')).toEqual([{ key: 4306, name: 'Silk Cloth', quality: 1 }]);
  });

  it('ranks an exact name first, then names starting with the text, then a word starting with it', () => {
    expect(searchItems(INDEX, 'copper ore').map((h) => h.name)).toEqual(['Copper Ore', 'Ore Sample of Copper']);
    expect(searchItems(INDEX, 'ore').map((h) => h.name)).toEqual(['Ore Sample of Copper', 'Copper Ore', 'Silver Ore']);
  });

  it('finds an item by its key, and nothing for empty text or a name no item has', () => {
    expect(searchItems(INDEX, '2589').map((h) => h.name)).toEqual(['Linen Cloth']);
    expect(searchItems(INDEX, '   ')).toEqual([]);
    expect(searchItems(INDEX, 'mithril')).toEqual([]);
  });

  it('stops at the limit', () => {
    expect(searchItems(INDEX, 'o', 2)).toHaveLength(2);
  });

  it('reads the entries of an index answer, and none of an answer that is not one', () => {
    expect(entriesOf({ v: 1, build: 'b', items: INDEX })).toEqual(INDEX);
    expect(entriesOf({ v: 1, build: 'b', items: [[1, 'A', 0, 0, null, null], 'junk', [2]] })).toEqual([[1, 'A', 0, 0, null, null]]);
    expect(entriesOf({ v: 1, build: 'b' })).toEqual([]);
    expect(entriesOf(null)).toEqual([]);
    expect(namesOf(INDEX).get(2770)).toBe('Copper Ore');
  });
});

describe('what the caller sees', () => {
  it('offers the resolutions the features allow: anonymous callers get daily and hourly, paid callers minutes too', () => {
    expect(allowedResolutions(ROLE_FEATURES.anon)).toEqual(['d1', 'h1']);
    expect(allowedResolutions(ROLE_FEATURES.premium)).toEqual(['d1', 'h1', 'm1']);
    expect(allowedResolutions(['candles.minute'])).toEqual(['m1']);
    expect(allowedResolutions([])).toEqual([]);
  });

  it('shows the resolution asked for only when allowed, else hourly', () => {
    expect(pickResolution(ROLE_FEATURES.anon, 'm1')).toBe('h1');
    expect(pickResolution(ROLE_FEATURES.premium, 'm1')).toBe('m1');
    expect(pickResolution(ROLE_FEATURES.anon, 'd1')).toBe('d1');
    expect(pickResolution(ROLE_FEATURES.anon, null)).toBe('h1');
    expect(pickResolution(['candles.daily'], null)).toBe('d1');
    expect(pickResolution([], 'd1')).toBeNull();
  });

  it('reads live only with prices.live and the live socket: not anonymous or free callers', () => {
    expect(readsLive(ROLE_FEATURES.anon)).toBe(false);
    expect(readsLive(ROLE_FEATURES.free)).toBe(false);
    expect(readsLive(ROLE_FEATURES.premium)).toBe(true);
    expect(readsLive(ROLE_FEATURES.contributor)).toBe(true);
    expect(readsLive(['prices.live'])).toBe(false);
  });

  it("names the hourly view's time: the top of the service's hour, in UTC", () => {
    const now = Date.UTC(2026, 10, 2, 14, 59, 59, 999);
    expect(hourlyCut(now)).toBe(Date.UTC(2026, 10, 2, 14));
    expect(hourlyLabel(now)).toBe('Hourly view as of 14:00 UTC, 2 Nov 2026');
    expect(hourlyLabel(Date.UTC(2026, 10, 2, 15))).toBe('Hourly view as of 15:00 UTC, 2 Nov 2026');
    expect(hourlyLabel(Date.UTC(2026, 0, 31, 3, 5))).toBe('Hourly view as of 03:00 UTC, 31 Jan 2026');
  });

  it('says what to do to see live prices: sign in, or become a contributor', () => {
    expect(liveHint(false)).toMatch(/^Sign in/);
    expect(liveHint(true)).toMatch(/contributor/);
  });
});

describe('candles as chart series', () => {
  it('turns [t, open, high, low, close, quantity] into candles and volume in seconds, ascending, one per time', () => {
    const s = toSeries([
      [7_200_000, 120, 130, 90, 100, 4],
      [3_600_000, 100, 120, 100, 110, 7],
      [7_200_000, 120, 140, 80, 125, 5],
    ]);
    expect(s.candles).toEqual([
      { time: 3600, open: 100, high: 120, low: 100, close: 110 },
      { time: 7200, open: 120, high: 140, low: 80, close: 125 },
    ]);
    expect(s.volume).toEqual([
      { time: 3600, value: 7, up: true },
      { time: 7200, value: 5, up: true },
    ]);
    expect(toSeries([[0, 10, 10, 5, 5, 1]]).volume[0].up).toBe(false);
  });

  it('describes the chart in words for people who cannot see it', () => {
    expect(describeSeries(toSeries([]), 'Copper Ore')).toBe('Copper Ore price chart: no candles yet.');
    const text = describeSeries(
      toSeries([
        [Date.UTC(2026, 10, 2, 10), 100, 120, 90, 110, 3],
        [Date.UTC(2026, 10, 2, 11), 110, 150, 100, 140, 2],
      ]),
      'Copper Ore',
    );
    expect(text).toBe('Copper Ore price chart: 2 candles from 2026-11-02 10:00 to 2026-11-02 11:00 UTC, low 90c, high 150c, last close 140c.');
  });
});

describe('the six markets', () => {
  const summary = (market: string, at: number) => ({ market, at, items: 3, listed: 2, scans: 1, contributors7d: 1 });

  it('lists all six in their order, those without data as waiting', () => {
    const rows = overviewOf([summary(MARKETS[4], 5), summary(MARKETS[0], 9)]);
    expect(rows.map((r) => r.market)).toEqual([...MARKETS]);
    expect(rows.filter((r) => r.summary).map((r) => r.market)).toEqual([MARKETS[0], MARKETS[4]]);
  });

  it('compares one item across the markets, marking the lowest listed price (not a gone or unlisted row)', () => {
    const rows = compareAcross([
      { market: MARKETS[0], row: [7, 500, 3, 10] },
      { market: MARKETS[1], row: [7, 450, 1, 11] },
      { market: MARKETS[2], row: [7, null, 0, 12] },
      { market: MARKETS[3], row: [7, 100, 0, 12] },
      { market: MARKETS[5], row: null },
    ]);
    expect(rows.map((r) => r.market)).toEqual([...MARKETS]);
    expect(rows.filter((r) => r.cheapest).map((r) => r.market)).toEqual([MARKETS[1]]);
    expect(rows[4]).toEqual({ market: MARKETS[4], price: null, quantity: 0, at: null, cheapest: false });
    expect(rows[2]).toMatchObject({ price: null, at: 12, cheapest: false });
    expect(compareAcross([]).some((r) => r.cheapest)).toBe(false);
  });

  it("keeps the live table's most recently changed rows first", () => {
    const table = new Map<number, Row>([
      [1, [1, 10, 1, 100]],
      [2, [2, 20, 1, 300]],
      [3, [3, null, 0, 200]],
      [4, [4, 40, 2, 300]],
    ]);
    expect(recentRows(table, 3).map((r) => r[0])).toEqual([2, 4, 3]);
  });
});
