import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../shared/clock';
import {
  BLOCK_MS,
  bookPath,
  cappedHourPath,
  changePath,
  checkpointPath,
  dayCandlesPath,
  expiredFiles,
  fileHeaders,
  fileUrl,
  fullDayCandlesPath,
  hourCandlesPath,
  IMMUTABLE,
  ITEMS_CURRENT_PATH,
  iconIdPath,
  iconPath,
  itemFilePaths,
  minuteBlockPath,
  parseFilePath,
  recentLatestPath,
  recentPath,
  retentionOf,
  snapshotLatestPath,
  snapshotPath,
  volumePath,
} from '../../shared/domain/file-paths';

const M = 'forever.normal.alliance.us';
const CAP = 'AbCdEfGhIjKlMnOpQr_-09';

describe('file paths', () => {
  it('builds every path of the spec exactly', () => {
    expect(snapshotPath(M, 480000)).toBe('snap/v1/forever.normal.alliance.us/480000.json.gz');
    expect(snapshotLatestPath(M)).toBe('snap/v1/forever.normal.alliance.us/latest.json');
    expect(recentPath(M, 480000)).toBe('recent/v1/forever.normal.alliance.us/480000.json.gz');
    expect(recentLatestPath(M)).toBe('recent/v1/forever.normal.alliance.us/latest.json');
    expect(itemFilePaths('1.15.7')).toEqual({ items: 'items/v1/1.15.7/items.json.gz', search: 'items/v1/1.15.7/search.json.gz' });
    expect(itemFilePaths('1.15.7', '0123456789abcdef')).toEqual({
      items: 'items/v1/1.15.7-0123456789abcdef/items.json.gz',
      search: 'items/v1/1.15.7-0123456789abcdef/search.json.gz',
    });
    expect(ITEMS_CURRENT_PATH).toBe('items/v1/current.json');
    expect(iconPath('inv_misc_herb_01')).toBe('icons/inv_misc_herb_01.webp');
    expect(iconIdPath(134187)).toBe('icons/id/134187.webp');
    expect(hourCandlesPath(M, 480001)).toBe('candles/v1/h1/forever.normal.alliance.us/480001.json.gz');
    expect(dayCandlesPath(M, 20000)).toBe('candles/v1/d1/forever.normal.alliance.us/20000.json.gz');
    expect(changePath(M, 7, CAP)).toBe(`live/v1/forever.normal.alliance.us/7-${CAP}.json.gz`);
    expect(checkpointPath(M, 50, CAP)).toBe(`live/v1/forever.normal.alliance.us/c50-${CAP}.json.gz`);
    expect(minuteBlockPath(M, CAP, 2880000)).toBe(`candles/v1/m1/forever.normal.alliance.us/${CAP}/2880000.json.gz`);
    expect(cappedHourPath(M, CAP, 479000)).toBe(`candles/v1/h1c/forever.normal.alliance.us/${CAP}/479000.json.gz`);
    expect(fullDayCandlesPath(M, CAP, 20000)).toBe(`candles/v1/d1c/forever.normal.alliance.us/${CAP}/20000.json.gz`);
    expect(volumePath(M, CAP, 20000)).toBe(`volume/v1/forever.normal.alliance.us/${CAP}/20000.json.gz`);
    expect(bookPath(M, 1728000000123, CAP)).toBe(`books/v1/forever.normal.alliance.us/1728000000123-${CAP}.json.gz`);
  });

  it('refuses a cap that is not 22 base64url characters and a hash that is not 16 hex digits', () => {
    expect(() => changePath(M, 1, 'short')).toThrow(RangeError);
    expect(() => bookPath(M, 1, `${CAP.slice(1)}=`)).toThrow(RangeError);
    expect(() => itemFilePaths('b', 'ABCDEF0123456789')).toThrow(RangeError);
    expect(() => itemFilePaths('a/b')).toThrow(RangeError);
  });

  it('joins the file host base and a path with exactly one slash', () => {
    expect(fileUrl('https://cdn.example.com', 'snap/v1/x/1.json.gz')).toBe('https://cdn.example.com/snap/v1/x/1.json.gz');
    expect(fileUrl('http://127.0.0.1:8787/cdn/', 'snap/v1/x/1.json.gz')).toBe('http://127.0.0.1:8787/cdn/snap/v1/x/1.json.gz');
    expect(fileUrl('https://dev.example.com/pr-12', '/items/v1/current.json')).toBe('https://dev.example.com/pr-12/items/v1/current.json');
  });

  it('reads every built path back into its parts', () => {
    expect(parseFilePath(changePath(M, 7, CAP))).toEqual({ kind: 'change', market: M, seq: 7, cap: CAP });
    expect(parseFilePath(checkpointPath(M, 50, CAP))).toEqual({ kind: 'checkpoint', market: M, seq: 50, cap: CAP });
    expect(parseFilePath(itemFilePaths('1.15.7-beta', '0123456789abcdef').search)).toEqual({
      kind: 'items',
      build: '1.15.7-beta',
      hash: '0123456789abcdef',
      file: 'search',
    });
    expect(parseFilePath(itemFilePaths('1.15.7-beta').items)).toEqual({ kind: 'items', build: '1.15.7-beta', hash: null, file: 'items' });
    expect(parseFilePath(iconIdPath(5))).toEqual({ kind: 'iconId', fileId: 5 });
    expect(parseFilePath('snap/v1/x/01.json.gz')).toBeNull();
    expect(parseFilePath('live/v1/x/7-short.json.gz')).toBeNull();
  });

  it('round-trips any market, period and cap through build and parse', () => {
    const cap = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);
    const n = fc.nat({ max: 2 ** 45 });
    const market = fc.constantFrom(M, 'forever.pvp.horde.us', 'forever.rp.alliance.us');
    fc.assert(
      fc.property(market, n, cap, (m, x, c) => {
        expect(parseFilePath(changePath(m, x, c))).toEqual({ kind: 'change', market: m, seq: x, cap: c });
        expect(parseFilePath(checkpointPath(m, x, c))).toEqual({ kind: 'checkpoint', market: m, seq: x, cap: c });
        expect(parseFilePath(minuteBlockPath(m, c, x))).toEqual({ kind: 'm1', market: m, cap: c, block: x });
        expect(parseFilePath(cappedHourPath(m, c, x))).toEqual({ kind: 'h1c', market: m, cap: c, hour: x });
        expect(parseFilePath(fullDayCandlesPath(m, c, x))).toEqual({ kind: 'd1c', market: m, cap: c, day: x });
        expect(parseFilePath(volumePath(m, c, x))).toEqual({ kind: 'volume', market: m, cap: c, day: x });
        expect(parseFilePath(bookPath(m, x, c))).toEqual({ kind: 'book', market: m, at: x, cap: c });
        expect(parseFilePath(hourCandlesPath(m, x))).toEqual({ kind: 'h1', market: m, hour: x });
        expect(parseFilePath(dayCandlesPath(m, x))).toEqual({ kind: 'd1', market: m, day: x });
        expect(parseFilePath(snapshotPath(m, x))).toEqual({ kind: 'snapshot', market: m, hour: x });
        expect(parseFilePath(recentPath(m, x))).toEqual({ kind: 'recent', market: m, hour: x });
      }),
    );
  });
});

describe('file headers', () => {
  it('writes .json.gz files gzip-encoded and immutable', () => {
    for (const path of [snapshotPath(M, 1), recentPath(M, 1), hourCandlesPath(M, 1), changePath(M, 1, CAP), bookPath(M, 1, CAP), volumePath(M, CAP, 1)]) {
      expect(fileHeaders(path)).toEqual({ contentType: 'application/json', contentEncoding: 'gzip', cacheControl: IMMUTABLE });
    }
    expect(IMMUTABLE).toBe('public, max-age=31536000, immutable');
  });

  it('writes pointers plain with their ttl: 60 s for snapshot and recent, 300 s for items', () => {
    expect(fileHeaders(snapshotLatestPath(M))).toEqual({ contentType: 'application/json', cacheControl: 'public, max-age=60' });
    expect(fileHeaders(recentLatestPath(M))).toEqual({ contentType: 'application/json', cacheControl: 'public, max-age=60' });
    expect(fileHeaders(ITEMS_CURRENT_PATH)).toEqual({ contentType: 'application/json', cacheControl: 'public, max-age=300' });
  });

  it('writes merged item files immutable and generated-only item files with the pointer ttl', () => {
    expect(fileHeaders(itemFilePaths('b', '0123456789abcdef').items).cacheControl).toBe(IMMUTABLE);
    expect(fileHeaders(itemFilePaths('b').items)).toEqual({ contentType: 'application/json', contentEncoding: 'gzip', cacheControl: 'public, max-age=300' });
  });

  it('writes icons as immutable WebP and refuses unknown paths', () => {
    expect(fileHeaders(iconPath('x'))).toEqual({ contentType: 'image/webp', cacheControl: IMMUTABLE });
    expect(() => fileHeaders('other/v1/x.json')).toThrow(RangeError);
  });
});

describe('retention', () => {
  it('keeps each prefix for the spec time', () => {
    expect(retentionOf(changePath(M, 1, CAP))).toBe(3 * DAY_MS);
    expect(retentionOf(bookPath(M, 1, CAP))).toBe(30 * DAY_MS);
    expect(retentionOf(minuteBlockPath(M, CAP, 1))).toBe(3 * DAY_MS);
    expect(retentionOf(hourCandlesPath(M, 1))).toBe(8 * DAY_MS);
    expect(retentionOf(cappedHourPath(M, CAP, 1))).toBe(15 * DAY_MS);
    expect(retentionOf(dayCandlesPath(M, 1))).toBe(2 * DAY_MS);
    expect(retentionOf(fullDayCandlesPath(M, CAP, 1))).toBe(2 * DAY_MS);
    expect(retentionOf(snapshotPath(M, 1))).toBe(7 * DAY_MS);
    expect(retentionOf(recentPath(M, 1))).toBe(8 * DAY_MS);
    expect(retentionOf(volumePath(M, CAP, 1))).toBe(2 * DAY_MS);
  });

  it('never expires pointers, item files or icons', () => {
    const now = 10_000 * DAY_MS;
    const kept = [snapshotLatestPath(M), recentLatestPath(M), ITEMS_CURRENT_PATH, itemFilePaths('b').items, iconPath('x'), 'unknown/file'];
    expect(kept.map(retentionOf)).toEqual(kept.map(() => null));
    expect(
      expiredFiles(
        kept.map((key) => ({ key, lastModified: 0 })),
        now,
      ),
    ).toEqual([]);
  });

  it('counts a period file from the end of its period and deletes it only after the retention', () => {
    const hour = 480000;
    const end = (hour + 1) * HOUR_MS;
    const file = { key: hourCandlesPath(M, hour) };
    expect(expiredFiles([file], end + 8 * DAY_MS)).toEqual([]);
    expect(expiredFiles([file], end + 8 * DAY_MS + 1)).toEqual([file.key]);
    const block = { key: minuteBlockPath(M, CAP, 100) };
    expect(expiredFiles([block], 101 * BLOCK_MS + 3 * DAY_MS)).toEqual([]);
    expect(expiredFiles([block], 101 * BLOCK_MS + 3 * DAY_MS + 1)).toEqual([block.key]);
  });

  it('keeps a day file until well after the next day file is written', () => {
    const day = 20000;
    const nextWritten = (day + 2) * DAY_MS + 5 * 60_000;
    const files = [{ key: dayCandlesPath(M, day) }, { key: fullDayCandlesPath(M, CAP, day) }, { key: volumePath(M, CAP, day) }];
    expect(expiredFiles(files, nextWritten)).toEqual([]);
    expect(expiredFiles(files, (day + 3) * DAY_MS + 1)).toEqual(files.map((f) => f.key));
  });

  it('deletes snapshot copies after 7 days and recent files after 8', () => {
    const hour = 480000;
    const at = hour * HOUR_MS;
    const files = [{ key: snapshotPath(M, hour) }, { key: recentPath(M, hour) }];
    expect(expiredFiles(files, at + 7 * DAY_MS + 1)).toEqual([snapshotPath(M, hour)]);
    expect(expiredFiles(files, at + 8 * DAY_MS + 1)).toEqual(files.map((f) => f.key));
  });

  it('ages books by their at and live files by their write time', () => {
    const at = 1_728_000_000_000;
    const book = { key: bookPath(M, at, CAP) };
    const change = { key: changePath(M, 9, CAP), lastModified: at };
    const unknownAge = { key: checkpointPath(M, 50, CAP) };
    expect(expiredFiles([book, change, unknownAge], at + 3 * DAY_MS)).toEqual([]);
    expect(expiredFiles([book, change, unknownAge], at + 3 * DAY_MS + 1)).toEqual([change.key]);
    expect(expiredFiles([book, change, unknownAge], at + 30 * DAY_MS + 1)).toEqual([book.key, change.key]);
  });
});
