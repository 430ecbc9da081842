import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdnJson } from '../support/books';
import { MAX_SAFE, MAX31, referenceChange } from '../support/full-range';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET, MINUTE, tierTokens, uploaderKey } from '../support/market-books';

/**
 * Integration (issue 10, point 1): a market whose books carry prices at both ends of 0..2^53-1 and stack and
 * n at 2^31-1 merges every book, gets its hourly snapshot, recent-changes file and pointers every hour (across
 * a UTC day, so day closes fold into the hour series), and every read route answers 200 with exact figures.
 */
type Entry = [key: number, price: number, stack: number, band: number, n: number];

const D = Math.floor(DEFAULT_START / DAY) + 1;
const at = (hour: number, minute: number) => D * DAY + hour * HOUR + minute * MINUTE;
/** The largest pet key, a plain key and a bid-only-plus-buyout key. */
const K1 = 2 ** 53 - 1;
const K2 = 25;
const K3 = 1000;
const SAT = MAX_SAFE;

/** Books alternating each item between the two price ends (hour closes jump by ±(2^53-2)). */
function entries(flip: boolean): Entry[] {
  const hi = flip ? 1 : MAX_SAFE;
  const lo = flip ? MAX_SAFE : 1;
  const list: Entry[] = [
    [K2, hi, MAX31, 1, MAX31],
    [K2, hi, MAX31, 3, MAX31],
    [K3, 0, MAX31, 0, MAX31],
    [K3, MAX_SAFE - 1, MAX31, 4, MAX31],
    [K1, lo, MAX31, 1, MAX31],
    [K1, MAX_SAFE, 1, 2, 1],
  ];
  return list.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
}

const BOOKS: Array<[number, Entry[]]> = [
  [at(22, 5), entries(false)],
  [at(22, 15), entries(true)],
  [at(23, 5), entries(false)],
  [at(24, 5), entries(true)],
];
const H1 = D * 24 + 25;

describe('a market at the edges of every range', () => {
  let local: Local;
  let tiers: Awaited<ReturnType<typeof tierTokens>>;

  beforeAll(async () => {
    local = await startLocal({ clockStart: at(22, 0) });
    tiers = await tierTokens(local);
    const key = await uploaderKey(local);
    for (const [t, list] of BOOKS) {
      await local.setClock(t);
      const body = { market: MARKET, at: t, complete: true, auctions: list.reduce((s, e) => s + e[4], 0), entries: list };
      const res = await local.api('POST', '/api/v1/ah/books', { token: key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await local.settle();
    }
    await local.setClock(H1 * HOUR + 5 * MINUTE);
    await local.tick();
  });
  afterAll(() => local.close());

  it('merges every book (nothing goes to the dead-letter queue)', async () => {
    expect(local.runtime.queues.deadLetters).toEqual([]);
    const files = (await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: tiers.premium })).body;
    expect(files.live.seq).toBe(BOOKS.length);
  });

  it('writes the hourly snapshot, the recent-changes file and both pointers every hour', async () => {
    for (const hour of [H1 - 1, H1]) {
      expect((await cdnJson(local, `snap/v1/${MARKET}/${hour}.json.gz`)).at).toBe(hour * HOUR);
      expect((await cdnJson(local, `recent/v1/${MARKET}/${hour}.json.gz`)).at).toBe(hour * HOUR);
    }
    expect(await cdnJson(local, `snap/v1/${MARKET}/latest.json`)).toMatchObject({ hour: H1, path: `snap/v1/${MARKET}/${H1}.json.gz` });
    expect(await cdnJson(local, `recent/v1/${MARKET}/latest.json`)).toMatchObject({ hour: H1, path: `recent/v1/${MARKET}/${H1}.json.gz` });
  });

  it('gives exact changes and sparks in the recent-changes file', async () => {
    const recent = await cdnJson(local, `recent/v1/${MARKET}/${H1}.json.gz`);
    const item = (k: number) => recent.items.find((i: unknown[]) => i[0] === k);
    // At H1 (01:00 of day D+1) the row of the 00:05 book stands; ch1h compares with the 23:00 hour's close.
    expect(item(K2).slice(0, 4)).toEqual([K2, 1, MAX31, referenceChange(1, MAX_SAFE)]);
    expect(item(K1).slice(0, 4)).toEqual([K1, MAX_SAFE, MAX31, referenceChange(MAX_SAFE, 1)]);
    expect(item(K1)[3]).toBe(9_007_199_254_740_990);
    // The last spark window ends at H1 (its close is the 00:00 hour's); the one before at H1 - 6, before the data.
    expect(item(K2)[6].slice(-2)).toEqual([null, 1]);
    expect(item(K1)[6].slice(-2)).toEqual([null, MAX_SAFE]);
  });

  it('answers exact candles, quantities and saturated volume estimates', async () => {
    const premium = tiers.premium;
    const candles = (await local.api('GET', `/api/v1/ah/${MARKET}/${K2}/candles?res=h1&from=${at(22, 0)}`, { token: premium })).body;
    expect(candles.candles[0]).toEqual([at(22, 0), MAX_SAFE, MAX_SAFE, 1, 1, MAX31]);
    const history = (await local.api('GET', `/api/v1/ah/${MARKET}/history?from=${D}`, { token: premium })).body;
    const k2 = history.items.find((i: unknown[]) => i[0] === K2);
    expect(k2[1][0]).toEqual([D, MAX_SAFE, MAX_SAFE, 1, MAX_SAFE, MAX31]);
    // Replacing books within 6 hours: n × stack summed passes 2^53-1 and holds there.
    expect(k2[2][0]).toEqual([D, SAT, SAT, SAT]);
  });

  it('answers every read route 200, live and hourly', async () => {
    const m = `/api/v1/ah/${MARKET}`;
    const [bookAt] = BOOKS[BOOKS.length - 1];
    const hourly = [
      '/api/v1/ah',
      `${m}/snapshot`,
      `${m}/files`,
      `${m}/history`,
      `${m}/${K1}`,
      `${m}/${K2}`,
      `${m}/${K1}/candles`,
      `${m}/${K1}/candles?res=h1`,
      `/item/${K1}?m=${MARKET}`,
      `/item/${K2}.md?m=${MARKET}`,
    ];
    const live = [
      ...hourly,
      m,
      `${m}?since=0`,
      `${m}/candles?items=${K1},${K2},${K3}&res=d1`,
      `${m}/candles?items=${K1},${K2},${K3}&res=h1`,
      `${m}/intraday`,
      `${m}/candles?items=${K1},${K2}&res=m1`,
      `${m}/${K2}/candles?res=m1`,
      `${m}/books`,
      `${m}/books/${bookAt}`,
      `${m}/${K1}/book`,
      `${m}/${K2}/book`,
    ];
    for (const path of live) expect((await local.api('GET', path, { token: tiers.premium })).status, `premium ${path}`).toBe(200);
    // A free caller reads the hourly view where the spec lets it (the rest is 403 by feature).
    for (const path of hourly) expect((await local.api('GET', path, { token: tiers.free })).status, `free ${path}`).toBe(200);
  });
});
