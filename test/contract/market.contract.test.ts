/** The market port's contract (meta, pages, logs, retention, caps, files state, answers), run against the DynamoDB adapter and the in-memory fake. */

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, ManualClock } from '../../shared/clock';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import type { Row, RowTable } from '../../shared/domain/merge';
import type { VolumePage } from '../../shared/domain/volume-estimate';
import { decodeHistoryParts } from '../../shared/page-format/history-parts';
import type { CandleCloses, ShardCloses } from '../../shared/page-format/page-closes';
import { type CandleParts, compactHistory, encodeCandleShards } from '../../shared/page-format/page-codec';
import { HISTORY_SHARDS, ROW_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import type { MarketPort, MergeRecord } from '../../shared/ports/market';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { candlePk, shardSk } from '../../shared/store/keys';
import { type MemoryPages, memoryMarket } from '../../shared/store/memory/market';
import { freshTable } from '../support/engines';
import { variantHistory, variantKeys } from '../support/many-variants';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const DAY = Math.floor(T0 / DAY_MS);
const HOUR = Math.floor(T0 / HOUR_MS);
const M = 'forever.pvp.horde.us';

const variants: Array<[string, (clock: ManualClock) => Promise<MarketPort>]> = [
  ['dynamodb', async (clock) => dynamoMarket(await freshTable(clock))],
  ['memory', async (clock) => memoryMarket(clock)],
];

const row = (price: number, quantity = 1): Row => ({ price, quantity, at: T0, reader: 'a1b2c3', changedAt: T0 });
const candle = (start: number, price: number, quantity = 1): Candle => ({
  open: price,
  high: price,
  low: price,
  close: price,
  quantity,
  openAt: start,
  lastAt: start,
});
// Keys 1 and 17 share a shard of 16; 2 is in another.
const [A, B, C] = [1, 2, 17];

/** Shard 1's points both candle tests write: A and C in HOUR, A alone in HOUR + 1. */
const SHARD_1_POINTS = new Map([
  [
    HOUR,
    [
      [A, 100, 2],
      [C, 300, 5],
    ],
  ],
  [HOUR + 1, [[A, 110, 1]]],
]);

/** A shard read of either form as period → [key, close, quantity] (periods and keys ascending). */
function shardPoints(read: ShardCloses): Map<number, number[][]> {
  const out = new Map<number, number[][]>();
  if ('block' in read) {
    const { keys, periods, close, quantity } = read.block;
    periods.forEach((p, j) => {
      out.set(
        p,
        Array.from(keys, (k, i) => [k, close[i * periods.length + j], quantity[i * periods.length + j]]),
      );
    });
  } else
    for (const p of [...read.runs.keys()].sort((x, y) => x - y)) {
      const run = read.runs.get(p) as CandleCloses;
      out.set(
        p,
        Array.from(run.keys, (k, i) => [k, run.close[i], run.quantity[i]]),
      );
    }
  return out;
}

describe.each(variants)('market port (%s)', (_name, make) => {
  it('commits meta only at the expected seq, sets only the fields given, and marks a pending merge only before its seq', async () => {
    const port = await make(new ManualClock(T0));
    expect(await port.pages.meta(M)).toEqual({
      market: M,
      seq: 0,
      newestScanAt: null,
      firstMergeAt: null,
      currentBook: null,
      historyThrough: null,
      lastUpload: null,
    });
    const pending = { uploadId: 'up-1', seq: 1, now: T0, changeCap: 'c'.repeat(22) };
    expect(await port.pages.markPending(M, { ...pending, seq: 2 })).toBe(false);
    expect(await port.pages.markPending(M, pending)).toBe(true);
    expect(await port.pages.commitMeta({ market: M, seq: 1, firstMergeAt: T0, lastUpload: 'up-1', pending: null }, 1)).toBe(false);
    expect(await port.pages.commitMeta({ market: M, seq: 1, firstMergeAt: T0, lastUpload: 'up-1', pending: null }, 0)).toBe(true);
    expect(await port.pages.commitMeta({ market: M, seq: 1, lastUpload: 'up-x' }, 0)).toBe(false);
    expect(await port.pages.commitMeta({ market: M, seq: 2, historyThrough: DAY - 1 }, 1)).toBe(true);
    expect(await port.latest.meta(M)).toMatchObject({ seq: 2, firstMergeAt: T0, lastUpload: 'up-1', historyThrough: DAY - 1, pending: null });
    expect(await port.pages.markPending(M, { ...pending, seq: 3 })).toBe(true);
    expect((await port.latest.meta(M)).pending).toEqual({ ...pending, seq: 3 });
  });

  it('rewrites only the row shards holding the changed keys, from the whole table', async () => {
    const port = await make(new ManualClock(T0));
    await port.pages.writeRows(
      M,
      new Map([
        [A, row(10)],
        [B, row(20)],
        [C, row(30)],
      ]),
      [A, B, C],
    );
    expect(await port.latest.rows(M)).toEqual(
      new Map([
        [A, row(10)],
        [B, row(20)],
        [C, row(30)],
      ]),
    );
    // C left the table: its shard (A's too) is rewritten; B's shard is not touched, so B keeps its stored row.
    await port.pages.writeRows(
      M,
      new Map([
        [A, row(11)],
        [B, row(99)],
      ]),
      [C],
    );
    expect(await port.latest.rows(M)).toEqual(
      new Map([
        [A, row(11)],
        [B, row(20)],
      ]),
    );
    expect(await port.latest.rowsOf(M, [B, C])).toEqual(new Map([[B, row(20)]]));
    // Whole shards (the API's read caches): every row of each shard asked, shards never written left out.
    const shards = await port.latest.rowShards(M, [shardOf(A, ROW_SHARDS), shardOf(B, ROW_SHARDS), 15]);
    const whole = new Map<number, Map<number, ReturnType<typeof row>>>();
    for (const [k, r] of [
      [A, row(11)],
      [B, row(20)],
    ] as const)
      whole.set(shardOf(k, ROW_SHARDS), new Map([...(whole.get(shardOf(k, ROW_SHARDS)) ?? []), [k, r]]));
    expect(shards).toEqual(whole);
  });

  it('keeps candle pages by period and shard, and reads them whole, by keys, by shard and as closes', async () => {
    const port = await make(new ManualClock(T0));
    const start = HOUR * HOUR_MS;
    const page: CandlePage = new Map([
      [A, candle(start, 100, 2)],
      [B, candle(start, 200)],
      [C, candle(start, 300, 5)],
    ]);
    await port.pages.writeCandlePage(M, 'h1', HOUR, start, page, [A, B, C]);
    await port.pages.writeCandlePage(M, 'h1', HOUR + 1, start + HOUR_MS, new Map([[A, candle(start + HOUR_MS, 110)]]), [A]);
    expect(await port.latest.candlePage(M, 'h1', HOUR)).toEqual(page);
    expect(await port.latest.candlePage(M, 'm1', HOUR)).toEqual(new Map());
    const of = await port.latest.candlesOf(M, 'h1', [HOUR, HOUR + 1, HOUR + 2], [A, C]);
    expect(of).toEqual(
      new Map([
        [
          HOUR,
          new Map([
            [A, candle(start, 100, 2)],
            [C, candle(start, 300, 5)],
          ]),
        ],
        [HOUR + 1, new Map([[A, candle(start + HOUR_MS, 110)]])],
      ]),
    );
    const shards = await port.latest.candleShards(M, 'h1', [
      { period: HOUR, shard: 1 },
      { period: HOUR + 2, shard: 1 },
    ]);
    expect(shards).toEqual([
      {
        period: HOUR,
        shard: 1,
        page: new Map([
          [A, candle(start, 100, 2)],
          [C, candle(start, 300, 5)],
        ]),
      },
    ]);
    const closes = await port.latest.candleCloses(M, 'h1', HOUR);
    expect(closes.flatMap((c) => [...c.keys]).sort((x, y) => x - y)).toEqual([A, B, C]);
    // One key shard over several hours (the cold snapshot's read): only the hours that hold it, each hour's
    // columns when the hours list other keys, one key-major block when they list the same.
    const byShard = await port.pages.candleClosesOfShard(M, 'h1', [HOUR, HOUR + 1, HOUR + 2], 1);
    expect('runs' in byShard).toBe(true);
    expect(shardPoints(byShard)).toEqual(SHARD_1_POINTS);
    await port.pages.writeCandlePage(M, 'h1', HOUR + 2, start + 2 * HOUR_MS, new Map([[A, candle(start + 2 * HOUR_MS, 120, 4)]]), [A]);
    const block = await port.pages.candleClosesOfShard(M, 'h1', [HOUR + 2, HOUR + 1, HOUR + 3], 1);
    expect('block' in block && { keys: [...block.block.keys], periods: [...block.block.periods], close: [...block.block.close] }).toEqual({
      keys: [A],
      periods: [HOUR + 1, HOUR + 2],
      close: [110, 120],
    });
    expect(shardPoints(block)).toEqual(
      new Map([
        [HOUR + 1, [[A, 110, 1]]],
        [HOUR + 2, [[A, 120, 4]]],
      ]),
    );
  });

  it('keeps volume shards with their book marks, and reads a day whole or by keys', async () => {
    const port = await make(new ManualClock(T0));
    const shard1: VolumePage = new Map([
      [A, [1, 2, 3]],
      [C, [4, 5, 6]],
    ]);
    const shard2: VolumePage = new Map([[B, [7, 8, 9]]]);
    await port.pages.writeVolumeShards(
      M,
      DAY,
      new Map([
        [1, { page: shard1, bookAt: T0 }],
        [2, { page: shard2, bookAt: null }],
      ]),
    );
    expect(await port.latest.volumeShards(M, DAY)).toEqual(
      new Map([
        [1, { page: shard1, bookAt: T0 }],
        [2, { page: shard2, bookAt: null }],
      ]),
    );
    expect(await port.latest.volumePage(M, DAY)).toEqual(
      new Map([
        [A, [1, 2, 3]],
        [B, [7, 8, 9]],
        [C, [4, 5, 6]],
      ]),
    );
    expect(await port.latest.volumeOf(M, [DAY, DAY + 1], [C])).toEqual(new Map([[DAY, new Map([[C, [4, 5, 6]]])]]));
    const whole = await port.latest.volumeShardsOf(M, [
      { day: DAY, shard: 1 },
      { day: DAY, shard: 3 },
      { day: DAY + 1, shard: 2 },
    ]);
    expect(whole).toEqual([{ day: DAY, shard: 1, page: shard1 }]);
  });

  it('keeps history by shard and its mark, and stored day folds until they expire', async () => {
    const port = await make(new ManualClock(T0));
    const day = DAY - 1;
    const history = compactHistory(
      new Map(),
      day,
      new Map([
        [A, candle(day * DAY_MS, 50)],
        [B, candle(day * DAY_MS, 60)],
      ]),
      new Map([[A, [1, 1, 1]]]),
      day - 90,
    );
    const byShard = new Map<number, typeof history>();
    for (const [d, page] of history) {
      for (const key of page.candles.keys()) {
        const s = key % 512;
        const into = byShard.get(s) ?? new Map();
        into.set(d, {
          candles: new Map([[key, page.candles.get(key) as Candle]]),
          volume: new Map(page.volume.has(key) ? [[key, page.volume.get(key) as [number, number, number]]] : []),
        });
        byShard.set(s, into);
      }
    }
    await port.pages.writeHistories(M, byShard);
    expect((await port.latest.historyOf(M, A)).get(day)?.candles.get(A)).toEqual(candle(day * DAY_MS, 50));
    expect((await port.latest.historyOf(M, [B])).get(day)?.candles.get(B)).toEqual(candle(day * DAY_MS, 60));
    expect([...(await port.latest.histories(M)).keys()].sort((x, y) => x - y)).toEqual([A % 512, B % 512]);
    // A shard's stored bytes decode to the page the whole-shard read gives; a shard never written has none.
    expect(decodeHistoryParts(await port.latest.historyShardBytes(M, A % 512))).toEqual((await port.latest.histories(M)).get(A % 512));
    expect(await port.latest.historyShardBytes(M, (A % 512) + 1 === B % 512 ? (A % 512) + 2 : (A % 512) + 1)).toEqual([]);
    expect(await port.latest.historyMark(M)).toBeNull();
    await port.pages.putHistoryMark(M, day, T0);
    expect(await port.latest.historyMark(M)).toBe(day);

    const fold: CandlePage = new Map([[A, candle(DAY * DAY_MS, 70)]]);
    await port.pages.writeDayFolds(M, HOUR, new Map([[1, fold]]), 4);
    expect(await port.latest.dayFolds(M, HOUR, [1, 2], T0)).toEqual(new Map([[1, { page: fold, seq: 4 }]]));
    expect(await port.latest.dayFolds(M, HOUR, [1], (DAY + 1) * DAY_MS + 2 * HOUR_MS)).toEqual(new Map());
  });

  it('stamps history shards with the compaction mark they are written for; a shard written without one reads as unstamped (issue 27 point 4)', async () => {
    const port = await make(new ManualClock(T0));
    const day = DAY - 1;
    const small = compactHistory(new Map(), day, new Map([[A, candle(day * DAY_MS, 50)]]), new Map([[A, [1, 1, 1]]]), day - 90);
    // One item's variants over 89 days: past DynamoDB's item limit, so the engine writes it as parts.
    const keys = variantKeys(800);
    const big = variantHistory(keys, day, 89, 1);
    const bigShard = shardOf(keys[0], HISTORY_SHARDS);
    expect(await port.latest.historyShard(M, A % 512)).toEqual({ parts: [], through: null });
    await port.pages.writeHistories(
      M,
      new Map([
        [A % 512, small],
        [bigShard, big],
      ]),
      day,
    );
    for (const store of [port.latest, port.pages]) {
      const one = await store.historyShard(M, A % 512);
      expect(one.through).toBe(day);
      expect(decodeHistoryParts(one.parts)).toEqual(small);
      const split = await store.historyShard(M, bigShard);
      expect(split.through).toBe(day);
      expect(decodeHistoryParts(split.parts)).toEqual(big);
    }
    // Read for some keys (an uncached item read): the stamp with the parts holding them, as historyOf reads.
    for (const store of [port.latest, port.pages]) {
      const some = await store.historyShard(M, bigShard, [keys[0]]);
      expect(some.through).toBe(day);
      expect(decodeHistoryParts(some.parts)).toEqual(await store.historyOf(M, [keys[0]]));
      expect(decodeHistoryParts(some.parts).get(day)?.candles.get(keys[0])).toEqual(big.get(day)?.candles.get(keys[0]));
    }
    // The same bytes as the unstamped read gives; a later write with a later mark moves the stamp.
    expect((await port.latest.historyShard(M, bigShard)).parts).toEqual(await port.latest.historyShardBytes(M, bigShard));
    await port.pages.writeHistories(M, new Map([[bigShard, big]]), day + 1);
    expect((await port.latest.historyShard(M, bigShard)).through).toBe(day + 1);
    // Written without a stamp (as before stamps): readable, stamped with nothing.
    await port.pages.writeHistories(M, new Map([[A % 512, small]]));
    expect(await port.latest.historyShard(M, A % 512)).toEqual({ parts: await port.latest.historyShardBytes(M, A % 512), through: null });
    expect(decodeHistoryParts((await port.latest.historyShard(M, A % 512)).parts)).toEqual(small);
  });

  it('logs merges, scans and books, leaving out expired entries', async () => {
    const clock = new ManualClock(T0);
    const port = await make(clock);
    const rec = (seq: number, extra: Partial<MergeRecord> = {}): MergeRecord => ({
      market: M,
      seq,
      at: T0 - 1000,
      mergedAt: T0 + seq,
      changePath: `live/v1/${M}/${seq}-x.json.gz`,
      ...extra,
    });
    await port.merges.put(rec(1, { checkpointPath: 'cp-1' }));
    await port.merges.put(rec(2));
    await port.merges.put(rec(2));
    await port.merges.put(rec(3, { checkpointPath: 'cp-3' }));
    expect((await port.merges.after(M, 1, T0)).map((r) => r.seq)).toEqual([2, 3]);
    expect(await port.merges.after(M, 0, T0)).toEqual([rec(1, { checkpointPath: 'cp-1' }), rec(2), rec(3, { checkpointPath: 'cp-3' })]);
    expect(await port.merges.newestCheckpoint(M, T0)).toEqual(rec(3, { checkpointPath: 'cp-3' }));
    expect(await port.merges.after(M, 0, T0 + 73 * HOUR_MS)).toEqual([]);

    const scan = (at: number, items: number) => ({ market: M, at, items, complete: false, credited: true, uploader: 'h1', mergedAt: at });
    await port.scans.put(scan(T0 - 2000, 5), 'u1');
    await port.scans.put(scan(T0 - 1000, 6), 'u2');
    await port.scans.put(scan(T0 - 1000, 7), 'u2');
    await port.scans.put(scan(T0 - 40 * DAY_MS, 1), 'u0');
    expect(await port.scans.between(M, T0 - 2000, T0)).toEqual([scan(T0 - 2000, 5), scan(T0 - 1000, 7)]);
    expect(await port.scans.between(M, 0, T0)).toEqual([scan(T0 - 2000, 5), scan(T0 - 1000, 7)]);
    expect(await port.scans.between(M, T0, T0 - 1)).toEqual([]);

    const book = (at: number) => ({ market: M, at, complete: true, auctions: 10, entries: 20, path: `books/v1/${M}/${at}-x.json.gz`, mergedAt: at });
    await port.books.put(book(T0 - 3000));
    await port.books.put(book(T0 - 1000));
    expect(await port.books.between(M, T0 - 5000, T0)).toEqual([book(T0 - 1000), book(T0 - 3000)]);
    expect(await port.books.get(M, T0 - 3000)).toEqual(book(T0 - 3000));
    expect(await port.books.get(M, T0)).toBeNull();
    clock.set(T0 + 31 * DAY_MS);
    expect(await port.books.get(M, T0 - 3000)).toBeNull();
    expect(await port.scans.between(M, 0, T0)).toEqual([]);
  });

  it('deletes a period’s pages, and rewrites rows for retention only while the seq holds and no merge is pending', async () => {
    const port = await make(new ManualClock(T0));
    const start = HOUR * HOUR_MS;
    await port.pages.writeCandlePage(
      M,
      'h1',
      HOUR,
      start,
      new Map([
        [A, candle(start, 1)],
        [B, candle(start, 2)],
      ]),
      [A, B],
    );
    expect(await port.retention.deletePeriod(M, 'h1', HOUR)).toBe(2);
    expect(await port.latest.candlePage(M, 'h1', HOUR)).toEqual(new Map());
    expect(await port.retention.deletePeriod(M, 'volume', DAY)).toBe(0);

    await port.pages.writeRows(
      M,
      new Map([
        [A, row(1)],
        [B, row(2)],
        [C, row(3)],
      ]),
      [A, B, C],
    );
    await port.pages.commitMeta({ market: M, seq: 1 }, 0);
    expect(
      await port.retention.rewriteRowsIfUnchanged(
        M,
        new Map([
          [B, row(2)],
          [C, row(3)],
        ]),
        [A],
        2,
      ),
    ).toBe(false);
    expect(
      await port.retention.rewriteRowsIfUnchanged(
        M,
        new Map([
          [B, row(2)],
          [C, row(3)],
        ]),
        [A],
        1,
      ),
    ).toBe(true);
    // The rows changed without a merge: META's `rowsRev` says so (caches of rows key on it, table-read.ts).
    expect((await port.latest.meta(M)).rowsRev).toBe(1);
    expect(await port.latest.rows(M)).toEqual(
      new Map([
        [B, row(2)],
        [C, row(3)],
      ]),
    );
    await port.pages.markPending(M, { uploadId: 'u', seq: 2, now: T0, changeCap: 'c'.repeat(22) });
    expect(await port.retention.rewriteRowsIfUnchanged(M, new Map<number, Row>() as RowTable, [C], 1)).toBe(false);

    expect(await port.retention.mark(M)).toBeNull();
    await port.retention.putMark(M, { ranAt: T0, minute: 1, hour: 2, day: 3 });
    expect(await port.retention.mark(M)).toEqual({ ranAt: T0, minute: 1, hour: 2, day: 3 });
  });

  it('counts merge failures per upload, makes each cap once, and lists day caps', async () => {
    const port = await make(new ManualClock(T0));
    expect(await port.failures.count(M, 'u1', 'boom', T0)).toBe(1);
    expect(await port.failures.count(M, 'u1', 'boom', T0)).toBe(2);
    expect(await port.failures.count(M, 'u2', 'boom', T0)).toBe(1);

    const scope = { kind: 'change' as const, market: M, seq: 5 };
    expect(await port.caps.get(scope)).toBeNull();
    const cap = await port.caps.create(scope);
    expect(cap).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await port.caps.create(scope)).toBe(cap);
    expect(await port.caps.get(scope)).toBe(cap);
    const day = await port.caps.ensureDay(M, DAY);
    expect(await port.caps.ensureDay(M, DAY)).toEqual(day);
    expect(await port.caps.dayCaps(M, 'm1', DAY - 1, DAY + 1)).toEqual(new Map([[DAY, day.m1]]));
    expect(await port.caps.dayCaps(M, 'h1', DAY, DAY)).toEqual(new Map([[DAY, day.h1]]));
  });

  it('advances a sealed period only from where it was, and never moves the snapshot hour back', async () => {
    const port = await make(new ManualClock(T0));
    expect(await port.filesState.get(M)).toMatchObject({ market: M, sealed: { m1: null, h1: null, d1: null }, snapHour: null });
    expect(await port.filesState.advanceSealed(M, 'h1', null, HOUR, { h1Path: 'candles/h1' })).toBe(true);
    expect(await port.filesState.advanceSealed(M, 'h1', null, HOUR + 1, { h1Path: 'x' })).toBe(false);
    expect(await port.filesState.advanceSealed(M, 'h1', HOUR, HOUR + 1, { h1Path: 'candles/h1b' })).toBe(true);
    await port.filesState.recordSnapshotHour(M, HOUR);
    await port.filesState.recordSnapshotHour(M, HOUR - 5);
    expect(await port.filesState.get(M)).toMatchObject({ sealed: { m1: null, h1: HOUR + 1, d1: null }, h1Path: 'candles/h1b', snapHour: HOUR });
  });

  it('keeps an answer until its hour ends, and the first spilled file recorded in an hour', async () => {
    const port = await make(new ManualClock(T0));
    const body = JSON.stringify({ rows: Array.from({ length: 1000 }, (_, i) => [i, i * 2]) });
    expect(await port.answers.read('h', T0)).toBeNull();
    await port.answers.write('h', body, T0);
    expect(await port.answers.read('h', T0 + 10)).toBe(body);
    expect(await port.answers.read('h', (HOUR + 1) * HOUR_MS)).toBeNull();
    expect(await port.answers.spilledFile('k', T0)).toBeNull();
    expect(await port.answers.recordSpilledFile('k', 'answers/v1/a', T0)).toBe('answers/v1/a');
    expect(await port.answers.recordSpilledFile('k', 'answers/v1/b', T0 + 1000)).toBe('answers/v1/a');
    expect(await port.answers.spilledFile('k', T0 + 1000)).toBe('answers/v1/a');
    expect(await port.answers.recordSpilledFile('k', 'answers/v1/c', (HOUR + 1) * HOUR_MS)).toBe('answers/v1/c');
  });

  it("keeps a finished day's fragment, bytes as written, until it expires (several chunks when big)", async () => {
    const port = await make(new ManualClock(T0));
    const small = Uint8Array.from([1, 2, 3, 0, 255]);
    // Random bytes do not compress: more than one 350 KB chunk.
    const big = Uint8Array.from({ length: 900_000 }, (_, i) => (i * 2654435761) >>> 24);
    expect(await port.answers.readFragment('v1|m|d1c|1', T0)).toBeNull();
    await port.answers.writeFragment('v1|m|d1c|1', small, T0 + DAY_MS);
    await port.answers.writeFragment('v1|m|d1v|1', big, T0 + DAY_MS);
    expect(Buffer.from((await port.answers.readFragment('v1|m|d1c|1', T0 + 10)) ?? [])).toEqual(Buffer.from(small));
    expect(Buffer.from((await port.answers.readFragment('v1|m|d1v|1', T0 + 10)) ?? []).equals(Buffer.from(big))).toBe(true);
    expect(await port.answers.readFragment('v1|m|d1c|1', T0 + DAY_MS)).toBeNull();
    expect(await port.answers.readFragment('v1|m|d1c|2', T0)).toBeNull();
  });
});

/** Stores a candle page shard exactly as given (e.g. in the layout before the head split), beside the port. */
type Plant = (res: 'h1' | 'd1', period: number, shard: number, item: CandleParts) => Promise<void>;
const plantable: Array<[string, (clock: ManualClock) => Promise<{ port: MarketPort; plant: Plant }>]> = [
  [
    'dynamodb',
    async (clock) => {
      const t = await freshTable(clock);
      const plant: Plant = async (res, period, shard, item) => {
        await t.ddb.send(new PutCommand({ TableName: t.name, Item: { pk: candlePk(M, res, period), sk: shardSk(shard), ...item } }));
      };
      return { port: dynamoMarket(t), plant };
    },
  ],
  [
    'memory',
    async (clock) => {
      const port = memoryMarket(clock);
      const plant: Plant = async (res, period, shard, item) => (port.pages as MemoryPages).putStoredCandleShard(M, res, period, shard, item);
      return { port, plant };
    },
  ],
];

describe.each(plantable)('market port (%s): candle page shards stored before the head split', (_name, make) => {
  it('reads a whole-page shard (only `d`) beside head-and-rest shards by every candle read, as the same candles and closes', async () => {
    const { port, plant } = await make(new ManualClock(T0));
    const start = HOUR * HOUR_MS;
    const old: CandlePage = new Map([
      [A, { ...candle(start, 100, 2), high: 130, low: 90, open: 95, lastAt: start + 60_000 }],
      [C, candle(start, 300, 5)],
    ]);
    // Hour HOUR: shard 1 in the old layout, shard 2 written now; hour HOUR + 1: shard 1 written now.
    await plant('h1', HOUR, 1, { d: encodeCandleShards(old, start, 16).get(1) as Uint8Array });
    await port.pages.writeCandlePage(M, 'h1', HOUR, start, new Map([[B, candle(start, 200)]]), [B]);
    await port.pages.writeCandlePage(M, 'h1', HOUR + 1, start + HOUR_MS, new Map([[A, candle(start + HOUR_MS, 110)]]), [A]);
    const whole = new Map([...old, [B, candle(start, 200)]]);
    expect(await port.latest.candlePage(M, 'h1', HOUR)).toEqual(whole);
    expect(await port.latest.candlesOf(M, 'h1', [HOUR, HOUR + 1], [A, B])).toEqual(
      new Map([
        [
          HOUR,
          new Map([
            [A, old.get(A)],
            [B, candle(start, 200)],
          ]),
        ],
        [HOUR + 1, new Map([[A, candle(start + HOUR_MS, 110)]])],
      ]),
    );
    expect(await port.latest.candleShards(M, 'h1', [{ period: HOUR, shard: 1 }])).toEqual([{ period: HOUR, shard: 1, page: old }]);
    const closes = await port.latest.candleCloses(M, 'h1', HOUR);
    const flat = closes.flatMap((c) => Array.from(c.keys, (k, i) => [k, c.close[i], c.quantity[i]])).sort((x, y) => x[0] - y[0]);
    expect(flat).toEqual([
      [A, 100, 2],
      [B, 200, 1],
      [C, 300, 5],
    ]);
    const byShard = await port.pages.candleClosesOfShard(M, 'h1', [HOUR, HOUR + 1], 1);
    expect(shardPoints(byShard)).toEqual(SHARD_1_POINTS);
    // Hours of the same keys, one stored before the split (no head): each hour's columns, the same values.
    await port.pages.writeCandlePage(
      M,
      'h1',
      HOUR + 1,
      start + HOUR_MS,
      new Map([
        [A, candle(start + HOUR_MS, 110)],
        [C, candle(start + HOUR_MS, 310, 3)],
      ]),
      [A],
    );
    expect(shardPoints(await port.pages.candleClosesOfShard(M, 'h1', [HOUR, HOUR + 1], 1))).toEqual(
      new Map([
        [
          HOUR,
          [
            [A, 100, 2],
            [C, 300, 5],
          ],
        ],
        [
          HOUR + 1,
          [
            [A, 110, 1],
            [C, 310, 3],
          ],
        ],
      ]),
    );
    // Rewriting the old shard stores it in the new layout, with the same candles.
    await port.pages.writeCandlePage(M, 'h1', HOUR, start, whole, [A]);
    expect(await port.latest.candlePage(M, 'h1', HOUR)).toEqual(whole);
  });
});
