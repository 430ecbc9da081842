/**
 * Issue 15 point 7: the snapshot job's cold run (a market with no stored recent series: every retained hour
 * page read and folded) writes the same bytes as its steady run (the stored series plus the newest hours),
 * snapshot and recent-changes files both, on a small market with gaps (keys missing from some hours, several
 * keys per shard, pet-cage keys above 2^31). The cold run reads the hour pages key shard by key shard (each
 * shard folded as it arrives), never whole hour pages one by one, and of each page shard only its head (keys,
 * closes, quantities: the attribute `c`), not the rest of its columns; page shards stored before that split
 * (the whole page under `d`) are read whole, to the same bytes.
 */
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import type { Candle, CandlePage } from '../../shared/domain/candles';
import { recentPath, snapshotPath } from '../../shared/domain/file-paths';
import type { RowTable } from '../../shared/domain/merge';
import type { VolumePage } from '../../shared/domain/volume-estimate';
import { deleteFiles, getObjectBytes } from '../../shared/files/file-store';
import { writeSnapshotFiles } from '../../shared/files/snapshot-files';
import { getWorkObject, seriesKey } from '../../shared/files/work-store';
import { decodeCandleParts, encodeCandleShards } from '../../shared/page-format/page-codec';
import { candlePk, shardSk } from '../../shared/store/keys';
import { MarketStore } from '../../shared/store/market-store';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { MARKET } from '../support/market-books';
import { volumeShardsOf } from '../support/market-fill';

const HOURS = 60;
const KEYS = [...Array.from({ length: 40 }, (_, i) => 1000 + i * 3), 2 ** 31 * 7 + 82_800, 2 ** 31 * 9 + 82_800];

describe('snapshot files: cold run and steady run', () => {
  let local: Local;
  const hour = Math.floor(DEFAULT_START / HOUR_MS) + 6 * 24 + 12;
  /** The steady run's files and series (the first test's), which the second one's cold run must equal. */
  let written: { snap: Buffer | null; recent: Buffer | null; series: Buffer | null } | null = null;

  beforeAll(async () => {
    local = await startLocal({ clockStart: (hour - 1) * HOUR_MS + 1000 });
    const svc = local.runtime.operator;
    const store = new MarketStore(svc.ddb, svc.config.tableName);
    const candle = (price: number, q: number, at: number): Candle => ({
      open: price + 2,
      high: price + 9,
      low: price - 1,
      close: price,
      quantity: q,
      openAt: at,
      lastAt: at + 20 * MINUTE_MS,
    });
    for (let h = hour - HOURS; h <= hour - 1; h++) {
      const page: CandlePage = new Map();
      for (const k of KEYS) if ((k + h) % 7 !== 0) page.set(k, candle(100 + ((k * 31 + h * 17) % 5000), 1 + ((k + h) % 9), h * HOUR_MS + MINUTE_MS));
      await store.writeCandlePage(MARKET, 'h1', h, h * HOUR_MS, page, [...page.keys()]);
    }
    const today = Math.floor((hour * HOUR_MS) / DAY_MS);
    for (let d = today - 3; d <= today; d++) {
      const page: CandlePage = new Map();
      const volume: VolumePage = new Map();
      for (const k of KEYS) {
        page.set(k, candle(200 + ((k + d) % 700), 5 + (k % 4), d * DAY_MS + HOUR_MS));
        volume.set(k, [4 + (k % 3), 1 + (k % 2), 0]);
      }
      await store.writeCandlePage(MARKET, 'd1', d, d * DAY_MS, page, KEYS);
      await store.writeVolumeShards(MARKET, d, volumeShardsOf(volume));
    }
    const rows: RowTable = new Map();
    const at = (hour - 1) * HOUR_MS - 5 * MINUTE_MS;
    for (const k of KEYS) rows.set(k, { price: 150 + (k % 300), quantity: 2, at, reader: 'test', changedAt: at });
    await store.writeRows(MARKET, rows, KEYS);
    await store.commitMeta({ ...(await store.meta(MARKET)), seq: 1, newestScanAt: at, firstMergeAt: (hour - HOURS) * HOUR_MS }, 0);
  });
  afterAll(() => local?.close());

  it('writes byte-identical files for an hour whether the series was stored or rebuilt', async () => {
    const svc = local.runtime.operator;
    // Steady: the previous hour's run stores the series; this hour's run folds the newest hours into it.
    expect(await writeSnapshotFiles(svc, MARKET, hour - 1)).not.toBeNull();
    expect(await getWorkObject(svc, seriesKey(MARKET))).not.toBeNull();
    await local.setClock(hour * HOUR_MS + 1000);
    expect(await writeSnapshotFiles(svc, MARKET, hour)).not.toBeNull();
    const steady = {
      snap: await getObjectBytes(svc, snapshotPath(MARKET, hour)),
      recent: await getObjectBytes(svc, recentPath(MARKET, hour)),
      series: await getWorkObject(svc, seriesKey(MARKET)),
    };
    expect(steady.snap?.length).toBeGreaterThan(100);
    expect(steady.recent?.length).toBeGreaterThan(100);

    // Cold: no stored series, the hour's files gone; the same hour again.
    await svc.s3.send(new DeleteObjectCommand({ Bucket: svc.config.workBucketName, Key: seriesKey(MARKET) }));
    await deleteFiles(svc, [snapshotPath(MARKET, hour), recentPath(MARKET, hour)]);
    expect(await getWorkObject(svc, seriesKey(MARKET))).toBeNull();
    expect(await writeSnapshotFiles(svc, MARKET, hour)).not.toBeNull();
    const cold = {
      snap: await getObjectBytes(svc, snapshotPath(MARKET, hour)),
      recent: await getObjectBytes(svc, recentPath(MARKET, hour)),
      series: await getWorkObject(svc, seriesKey(MARKET)),
    };

    expect(cold.snap?.equals(steady.snap as Buffer)).toBe(true);
    expect(cold.recent?.equals(steady.recent as Buffer)).toBe(true);
    expect(cold.series?.equals(steady.series as Buffer)).toBe(true);
    written = steady;
  });

  it('reads a cold series key shard by key shard over every hour, not hour page by hour page, and writes the same bytes', async () => {
    const svc = local.runtime.operator;
    expect(written).not.toBeNull();
    await svc.s3.send(new DeleteObjectCommand({ Bucket: svc.config.workBucketName, Key: seriesKey(MARKET) }));
    await deleteFiles(svc, [snapshotPath(MARKET, hour), recentPath(MARKET, hour)]);
    const pages = svc.market.pages;
    const byShard = vi.spyOn(pages, 'candleClosesOfShard');
    const byPage = vi.spyOn(pages, 'candleCloses');
    try {
      expect(await writeSnapshotFiles(svc, MARKET, hour)).not.toBeNull();
      const hourReads = byShard.mock.calls.filter(([m, res]) => m === MARKET && res === 'h1');
      expect(hourReads.map(([, , , shard]) => shard).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, s) => s));
      // Every retained hour since the first merge, up to the hour before.
      for (const [, , periods] of hourReads) expect(periods).toEqual(Array.from({ length: HOURS }, (_, i) => hour - HOURS + i));
      expect(byPage.mock.calls.filter(([, res]) => res === 'h1')).toEqual([]);
    } finally {
      byShard.mockRestore();
      byPage.mockRestore();
    }
    expect((await getObjectBytes(svc, snapshotPath(MARKET, hour)))?.equals(written?.snap as Buffer)).toBe(true);
    expect((await getObjectBytes(svc, recentPath(MARKET, hour)))?.equals(written?.recent as Buffer)).toBe(true);
    expect((await getWorkObject(svc, seriesKey(MARKET)))?.equals(written?.series as Buffer)).toBe(true);
  });

  /** A cold run of `hour` (series and files deleted first) through a store on the operator's client, every DynamoDB call seen. */
  async function coldRun(): Promise<Array<{ input: Record<string, unknown>; output: Record<string, unknown> }>> {
    const svc = local.runtime.operator;
    await svc.s3.send(new DeleteObjectCommand({ Bucket: svc.config.workBucketName, Key: seriesKey(MARKET) }));
    await deleteFiles(svc, [snapshotPath(MARKET, hour), recentPath(MARKET, hour)]);
    const pages = new MarketStore(svc.ddb, svc.config.tableName);
    const calls: Array<{ input: Record<string, unknown>; output: Record<string, unknown> }> = [];
    const send = svc.ddb.send.bind(svc.ddb) as (c: unknown) => Promise<Record<string, unknown>>;
    const spy = vi.spyOn(svc.ddb, 'send').mockImplementation((async (command: { input: Record<string, unknown> }) => {
      const output = await send(command);
      if (command instanceof BatchGetCommand) calls.push({ input: command.input, output });
      return output;
    }) as never);
    try {
      expect(await writeSnapshotFiles({ ...svc, market: { ...svc.market, pages } }, MARKET, hour)).not.toBeNull();
    } finally {
      spy.mockRestore();
    }
    expect((await getObjectBytes(svc, snapshotPath(MARKET, hour)))?.equals(written?.snap as Buffer)).toBe(true);
    expect((await getObjectBytes(svc, recentPath(MARKET, hour)))?.equals(written?.recent as Buffer)).toBe(true);
    expect((await getWorkObject(svc, seriesKey(MARKET)))?.equals(written?.series as Buffer)).toBe(true);
    return calls;
  }

  const hourKeysOf = (input: Record<string, unknown>) =>
    Object.values(input.RequestItems as Record<string, { Keys: Array<{ pk: string; sk: string }> }>).flatMap((r) => r.Keys);
  const isHourPage = (k: { pk: string }) => k.pk.startsWith(candlePk(MARKET, 'h1', 0).replace(/0$/, ''));

  it('reads only the head (`c`: keys, closes, quantities) of each hour page shard, never the rest of its columns', async () => {
    expect(written).not.toBeNull();
    const calls = (await coldRun()).filter((c) => hourKeysOf(c.input).some(isHourPage));
    expect(calls.length).toBeGreaterThan(0);
    let heads = 0;
    for (const { input, output } of calls) {
      for (const request of Object.values(
        input.RequestItems as Record<string, { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }>,
      )) {
        const names = Object.values(request.ExpressionAttributeNames ?? {});
        expect(request.ProjectionExpression).toBeDefined();
        expect(names).toContain('c');
        expect(names).not.toContain('d');
      }
      for (const items of Object.values(output.Responses as Record<string, Array<Record<string, unknown>>>)) {
        for (const item of items) {
          expect(item.d).toBeUndefined();
          expect(item.c).toBeInstanceOf(Uint8Array);
          heads++;
        }
      }
    }
    expect(heads).toBeGreaterThan(HOURS);
  });

  it('reads hour page shards stored before the head split (the whole page under `d`) whole, to the same bytes', async () => {
    expect(written).not.toBeNull();
    const svc = local.runtime.operator;
    // Every other hour's shards back to the old layout, as a page written before the split holds them.
    const rewritten: Array<{ pk: string; sk: string }> = [];
    for (let h = hour - HOURS; h < hour; h += 2) {
      for (let shard = 0; shard < 16; shard++) {
        const key = { pk: candlePk(MARKET, 'h1', h), sk: shardSk(shard) };
        const item = (await svc.ddb.send(new GetCommand({ TableName: svc.config.tableName, Key: key }))).Item;
        if (!item) continue;
        expect(item.c).toBeInstanceOf(Uint8Array);
        const { page, start } = decodeCandleParts(item as { c: Uint8Array; d: Uint8Array });
        const d = encodeCandleShards(page, start, 16, [shard]).get(shard) as Uint8Array;
        await svc.ddb.send(new PutCommand({ TableName: svc.config.tableName, Item: { ...key, d, ttl: item.ttl } }));
        rewritten.push(key);
      }
    }
    expect(rewritten.length).toBeGreaterThan(HOURS / 2);
    const calls = await coldRun();
    // The old shards were asked for again, whole.
    const again = calls.filter((c) =>
      Object.values(c.input.RequestItems as Record<string, { ExpressionAttributeNames?: Record<string, string> }>).some((r) =>
        Object.values(r.ExpressionAttributeNames ?? {}).includes('d'),
      ),
    );
    expect(again.flatMap((c) => hourKeysOf(c.input)).filter(isHourPage).length).toBe(rewritten.length);
  });
});
