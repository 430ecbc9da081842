import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../shared/clock';
import { itemFilePaths, snapshotPath } from '../../shared/domain/file-paths';
import {
  type AuctionRow,
  bookDoc,
  type Candle,
  changeDoc,
  checkpointDoc,
  dayCandlesDoc,
  hourCandlesDoc,
  hourlySnapshotDoc,
  isCheckpointSeq,
  itemsCurrentDoc,
  latestPointerDoc,
  minuteBlockDoc,
  volumeDoc,
} from '../../shared/files/documents';

const M = 'forever.rp.alliance.us';
const candle = (close: number, quantity = 1): Candle => ({ open: close - 1, high: close + 2, low: close - 3, close, quantity, openAt: 0, lastAt: 0 });

describe('hourly snapshot and pointers', () => {
  it('builds the snapshot with at the hour start, rows and days ascending', () => {
    const hour = 480000;
    const at = hour * HOUR_MS;
    const rows: AuctionRow[] = [
      [30, 5, 1, at - 10],
      [10, null, 0, at - 20],
    ];
    const days = new Map([
      [30, [[19999, 5, 1] as [number, number, number], [19998, 4, 2] as [number, number, number]]],
      [10, []],
    ]);
    const doc = hourlySnapshotDoc({ market: M, hour, scan: at - 10, rows, days, now: at + 5 });
    expect(doc).toEqual({
      v: 1,
      market: M,
      at,
      scan: at - 10,
      rows: [
        [10, null, 0, at - 20],
        [30, 5, 1, at - 10],
      ],
      days: [
        [
          30,
          [
            [19998, 4, 2],
            [19999, 5, 1],
          ],
        ],
      ],
      now: at + 5,
    });
  });

  it('keeps rows read at most 30 days before at and leaves older ones out', () => {
    const at = 480000 * HOUR_MS;
    const rows: AuctionRow[] = [
      [1, 5, 1, at - 30 * DAY_MS],
      [2, 5, 1, at - 30 * DAY_MS - 1],
    ];
    const doc = hourlySnapshotDoc({ market: M, hour: 480000, scan: null, rows, days: new Map(), now: at });
    expect(doc.rows.map((r) => r[0])).toEqual([1]);
    expect(doc.scan).toBeNull();
  });

  it('builds the latest pointer and the item pointer', () => {
    expect(latestPointerDoc(M, 480000, snapshotPath(M, 480000))).toEqual({
      v: 1,
      market: M,
      hour: 480000,
      at: 480000 * HOUR_MS,
      path: `snap/v1/${M}/480000.json.gz`,
    });
    expect(itemsCurrentDoc('1.2', null, itemFilePaths('1.2'), 77)).toEqual({
      v: 1,
      build: '1.2',
      hash: null,
      items: 'items/v1/1.2/items.json.gz',
      search: 'items/v1/1.2/search.json.gz',
      at: 77,
    });
  });
});

describe('candle files', () => {
  it('builds the hour file with each item entry the candle itself', () => {
    const hour = 480010;
    const doc = hourCandlesDoc(
      M,
      hour,
      new Map([
        [9, candle(100, 4)],
        [3, candle(50, 2)],
      ]),
    );
    const t = hour * HOUR_MS;
    expect(doc).toEqual({
      v: 1,
      market: M,
      res: 'h1',
      t,
      items: [
        [3, [t, 49, 52, 47, 50, 2]],
        [9, [t, 99, 102, 97, 100, 4]],
      ],
    });
  });

  it('builds the public day file of days day-6 to day and the full one of day-89 to day', () => {
    const day = 20000;
    const candles = new Map([
      [
        5,
        [
          [day, candle(10)],
          [day - 6, candle(6)],
          [day - 7, candle(7)],
          [day - 89, candle(89)],
          [day + 1, candle(1)],
        ] as [number, Candle][],
      ],
      [4, [[day - 50, candle(50)]] as [number, Candle][]],
    ]);
    const pub = dayCandlesDoc(M, day, 7, candles);
    expect(pub).toMatchObject({ v: 1, market: M, res: 'd1', t: day * DAY_MS, days: 7 });
    expect(pub.items).toEqual([
      [
        5,
        [
          [(day - 6) * DAY_MS, 5, 8, 3, 6, 1],
          [day * DAY_MS, 9, 12, 7, 10, 1],
        ],
      ],
    ]);
    const full = dayCandlesDoc(M, day, 90, candles);
    expect(full.days).toBe(90);
    expect(full.items.map(([k, list]) => [k, list.map((c) => c[0] / DAY_MS)])).toEqual([
      [4, [day - 50]],
      [5, [day - 89, day - 7, day - 6, day]],
    ]);
  });

  it('builds a minute block of its 10 minutes only', () => {
    const block = 2_880_000;
    const firstMinute = block * 10;
    const doc = minuteBlockDoc(
      M,
      block,
      new Map([
        [
          1,
          [
            [firstMinute + 10, candle(3)],
            [firstMinute + 9, candle(2)],
            [firstMinute, candle(1)],
            [firstMinute - 1, candle(0)],
          ] as [number, Candle][],
        ],
        [2, [[firstMinute + 10, candle(5)]] as [number, Candle][]],
      ]),
    );
    expect(doc).toMatchObject({ v: 1, market: M, res: 'm1', t: block * 600_000 });
    expect(doc.items).toEqual([
      [
        1,
        [
          [firstMinute * 60_000, 0, 3, -2, 1, 1],
          [(firstMinute + 9) * 60_000, 1, 4, -1, 2, 1],
        ],
      ],
    ]);
  });
});

describe('live and depth files', () => {
  it('builds change files and checkpoints with rows ascending by key', () => {
    const rows: AuctionRow[] = [
      [7, null, 0, 5],
      [2, 100, 3, 5],
    ];
    expect(changeDoc(M, 12, 5, rows)).toEqual({
      v: 1,
      market: M,
      seq: 12,
      at: 5,
      rows: [
        [2, 100, 3, 5],
        [7, null, 0, 5],
      ],
    });
    expect(checkpointDoc(M, 50, 5, rows).seq).toBe(50);
  });

  it('writes a checkpoint after merge 1 and every 50th merge', () => {
    expect([1, 2, 49, 50, 51, 100, 150].filter(isCheckpointSeq)).toEqual([1, 50, 100, 150]);
    expect(isCheckpointSeq(0)).toBe(false);
  });

  it('builds the volume file of days day-89 to day', () => {
    const day = 20000;
    const doc = volumeDoc(
      M,
      day,
      new Map([
        [
          8,
          [
            [day, 10, 4, 1],
            [day - 89, 1, 1, 0],
            [day - 90, 9, 9, 9],
          ],
        ],
        [3, [[day - 95, 1, 1, 1]]],
      ]),
    );
    expect(doc).toEqual({
      v: 1,
      market: M,
      t: day * DAY_MS,
      days: 90,
      items: [
        [
          8,
          [
            [day - 89, 1, 1, 0],
            [day, 10, 4, 1],
          ],
        ],
      ],
    });
  });

  it('builds the book file from the stored book without its via', () => {
    const book = { market: M, at: 99, complete: true, auctions: 2, entries: [[1, 5, 1, 2, 2]] as [number, number, number, number, number][], via: 'partner' };
    expect(bookDoc(book)).toEqual({ v: 1, market: M, at: 99, complete: true, auctions: 2, entries: [[1, 5, 1, 2, 2]] });
  });
});
