import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFiles } from '../support/books';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, type Listing, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const CAP = '[A-Za-z0-9_-]{22}';
const D = Math.floor(DEFAULT_START / DAY);
const T0 = D * DAY;
const BLOCK = 10 * MINUTE;

/** Readings: 10 keys, prices moving with each book. */
const book = (n: number): Listing[] => Array.from({ length: 10 }, (_, i) => [1000 + i, 10_000 + i * 100 + n * 7, 1 + ((i + n) % 4)]);

// biome-ignore lint/suspicious/noExplicitAny: file bodies are asserted field by field
type Json = any;

async function file(local: Local, path: string): Promise<Json> {
  const res = await fetch(`${local.base}/cdn/${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

describe('published files across minute, hour and day boundaries', () => {
  let local: Local;
  let tokens: Awaited<ReturnType<typeof tierTokens>>;
  /** Upload times (one book each, 10 keys). */
  const ats = [T0 + 2 * MINUTE, T0 + 7 * MINUTE + 500, T0 + 13 * MINUTE, T0 + 58 * MINUTE, T0 + HOUR + 4 * MINUTE, T0 + 5 * HOUR + 30 * MINUTE];

  beforeAll(async () => {
    local = await startLocal();
    tokens = await tierTokens(local);
    const key = await uploaderKey(local);
    for (const [n, at] of ats.entries()) await uploadAt(local, key, at, book(n));
    await local.setClock(T0 + DAY + 5 * MINUTE);
    await local.tick();
  });
  afterAll(() => local.close());

  it('writes every finished period from the first merge on, empty or not, each once, with the headers of its path', async () => {
    const files = await listFiles(local, '');
    for (const f of files.filter((x) => /^(candles|snap|recent|volume|live|books)\//.test(x.key))) {
      if (f.key.endsWith('/latest.json')) expect(f, f.key).toMatchObject({ contentType: 'application/json', cacheControl: 'public, max-age=60' });
      else expect(f, f.key).toMatchObject({ contentType: 'application/json', contentEncoding: 'gzip', cacheControl: IMMUTABLE });
    }
    const files1 = (await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: tokens.premium })).body;
    const m1Cap = files1.caps.m1[D];
    const h1Cap = files1.caps.h1[D];
    const keys = files.map((f) => f.key);
    const under = (prefix: string) => keys.filter((k) => k.startsWith(prefix)).sort();
    const blocks = Array.from({ length: 144 }, (_, i) => T0 / BLOCK + i);
    expect(under(`candles/v1/m1/${MARKET}/`)).toEqual(blocks.map((b) => `candles/v1/m1/${MARKET}/${m1Cap}/${b}.json.gz`).sort());
    const hours = Array.from({ length: 24 }, (_, i) => T0 / HOUR + i);
    expect(under(`candles/v1/h1/${MARKET}/`)).toEqual(hours.map((h) => `candles/v1/h1/${MARKET}/${h}.json.gz`).sort());
    expect(under(`candles/v1/h1c/${MARKET}/`)).toEqual(hours.map((h) => `candles/v1/h1c/${MARKET}/${h1Cap}/${h}.json.gz`).sort());
    expect(under(`candles/v1/d1/${MARKET}/`)).toEqual([`candles/v1/d1/${MARKET}/${D}.json.gz`]);
    expect(under(`candles/v1/d1c/${MARKET}/`)).toEqual([expect.stringMatching(new RegExp(`^candles/v1/d1c/${MARKET}/${CAP}/${D}\\.json\\.gz$`))]);
    expect(under(`volume/v1/${MARKET}/`)).toEqual([expect.stringMatching(new RegExp(`^volume/v1/${MARKET}/${CAP}/${D}\\.json\\.gz$`))]);
    expect(files1.sealed).toEqual({ m1: (T0 + DAY) / BLOCK - 1, h1: (T0 + DAY) / HOUR - 1, d1: D });
    // Other markets have no data: nothing is sealed for them.
    expect(keys.filter((k) => k.includes('forever.pvp.'))).toEqual([]);
    const empty = await file(local, `candles/v1/m1/${MARKET}/${m1Cap}/${T0 / BLOCK + 20}.json.gz`);
    expect(empty).toEqual({ v: 1, market: MARKET, res: 'm1', t: T0 + 20 * BLOCK, items: [] });
  });

  it('holds in each candle file what the candle routes answer for the same period', async () => {
    const premium = tokens.premium;
    const files1 = (await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: premium })).body;
    const items = Array.from({ length: 10 }, (_, i) => 1000 + i);
    const batch = async (res: string, from: number) =>
      new Map<number, number[][]>(
        (await local.api('GET', `/api/v1/ah/${MARKET}/candles?items=${items.join(',')}&res=${res}&from=${from}`, { token: premium })).body.items,
      );
    // Minute candles answer the last 1440 minutes: block 1 (minute 13) is inside, block 0 partly not.
    const m1 = await batch('m1', T0);
    const block1 = await file(local, `candles/v1/m1/${MARKET}/${files1.caps.m1[D]}/${T0 / BLOCK + 1}.json.gz`);
    expect(block1.items).toEqual(items.map((k) => [k, (m1.get(k) ?? []).filter((c) => c[0] >= T0 + BLOCK && c[0] < T0 + 2 * BLOCK)]));
    expect(block1.items[0][1]).toHaveLength(1);
    const block0 = await file(local, `candles/v1/m1/${MARKET}/${files1.caps.m1[D]}/${T0 / BLOCK}.json.gz`);
    expect(block0.items[0][1].map((c: number[]) => c[0])).toEqual([T0 + 2 * MINUTE, T0 + 7 * MINUTE]);
    const h1 = await batch('h1', T0);
    for (const hour of [T0 / HOUR, T0 / HOUR + 1, T0 / HOUR + 3]) {
      const pub = await file(local, `candles/v1/h1/${MARKET}/${hour}.json.gz`);
      const copy = await file(local, `candles/v1/h1c/${MARKET}/${files1.caps.h1[D]}/${hour}.json.gz`);
      expect(copy).toEqual(pub);
      const expected = items.flatMap((k) => (h1.get(k) ?? []).filter((c) => c[0] === hour * HOUR).map((c) => [k, c]));
      expect(pub).toEqual({ v: 1, market: MARKET, res: 'h1', t: hour * HOUR, items: expected });
    }
    const d1 = await batch('d1', T0 - 30 * DAY);
    const full = await file(local, files1.caps.d1.slice(`${local.base}/cdn/`.length));
    const pub = await file(local, `candles/v1/d1/${MARKET}/${D}.json.gz`);
    expect(full).toEqual({ v: 1, market: MARKET, res: 'd1', t: T0, days: 90, items: items.map((k) => [k, d1.get(k)]) });
    expect(pub).toEqual({ ...full, days: 7 });
    const one = (await local.api('GET', `/api/v1/ah/${MARKET}/1003/candles?res=d1`, { token: premium })).body;
    const volume = await file(local, files1.caps.volume.slice(`${local.base}/cdn/`.length));
    expect(volume).toMatchObject({ v: 1, market: MARKET, t: T0, days: 90 });
    expect(new Map(volume.items).get(1003) ?? []).toEqual(one.volume);
  });

  it('writes the hourly snapshot and recent-changes files with pointers, the snapshot equal to the snapshot route', async () => {
    const hour = (T0 + DAY) / HOUR;
    const keys = (await listFiles(local, `snap/v1/${MARKET}/`)).map((f) => f.key);
    expect(keys).toContain(`snap/v1/${MARKET}/${hour}.json.gz`);
    const pointer = await file(local, `snap/v1/${MARKET}/latest.json`);
    expect(pointer).toEqual({ v: 1, market: MARKET, hour, at: hour * HOUR, path: `snap/v1/${MARKET}/${hour}.json.gz` });
    const snap = await file(local, pointer.path);
    expect((await local.api('GET', `/api/v1/ah/${MARKET}/snapshot`)).body).toEqual(snap);
    expect(snap).toMatchObject({ v: 1, market: MARKET, at: hour * HOUR, scan: ats[5] });
    expect(snap.rows).toEqual(book(5).map(([k, p, q]) => [k, p, q, ats[5]]));
    const recentPointer = await file(local, `recent/v1/${MARKET}/latest.json`);
    expect(recentPointer).toEqual({ v: 1, market: MARKET, hour, at: hour * HOUR, path: `recent/v1/${MARKET}/${hour}.json.gz` });
    const recent = await file(local, recentPointer.path);
    expect(recent).toMatchObject({ v: 1, market: MARKET, at: hour * HOUR });
    expect(recent.items.map((r: unknown[]) => r.slice(0, 3))).toEqual(snap.rows.map((r: unknown[]) => r.slice(0, 3)));
    expect(recent.index).toHaveLength(168);
    expect(Object.keys(recent.categories).sort()).toEqual(['cloth', 'consumables', 'elemental', 'enchanting', 'gear', 'herbs', 'leather', 'ore']);
    const files1 = (await local.api('GET', `/api/v1/ah/${MARKET}/files`)).body;
    expect(files1.snapshot).toBe(`${local.base}/cdn/snap/v1/${MARKET}/${hour}.json.gz`);
  });
});
