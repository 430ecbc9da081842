import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../lib/local/engines/storage';
import type { OperatorServices } from '../../lib/local/functions/operator';
import { DAY_MS, HOUR_MS, ManualClock } from '../../shared/clock';
import { compactHistories } from '../../shared/market/history-compaction';
import { itemDays, itemsDays } from '../../shared/market/item-read';
import { marketHistory } from '../../shared/market/market-read';
import { readSources } from '../../shared/market/sources';
import { HISTORY_SHARDS, PAGE_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import type { HistoryPage } from '../../shared/ports/market';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { historyPk, shardSk } from '../../shared/store/keys';
import { MarketStore } from '../../shared/store/market-store';
import { prng, variantDay, variantKeys } from '../support/many-variants';

/**
 * A history shard past DynamoDB's 400 KB item limit, on DynamoDB Local: one item with 800 variants (pet cages of
 * item 82800, all in one history shard) over the 89 days compaction keeps. Compaction must write it (as parts),
 * reads must find every day of every variant, and a later compaction that shrinks the shard leaves no stale part.
 */
const M = 'forever.normal.horde.eu';
const TODAY = 20_400;
const FIRST = TODAY - 90;
const LAST = TODAY - 2;
const KEYS = variantKeys(800);
const SHARD = shardOf(KEYS[0], HISTORY_SHARDS);
/** DynamoDB's item size limit: 400 KB for names and values together. */
const ITEM_LIMIT = 400 * 1024;

describe('a history shard past the item limit', () => {
  const clock = new ManualClock(TODAY * DAY_MS + 12 * HOUR_MS);
  let svc: OperatorServices;
  let store: MarketStore;
  const written: HistoryPage = new Map();

  /** Every item of the market's history partition: sk and size of `d`. */
  const historyItems = async () => {
    const out: Array<{ sk: string; bytes: number }> = [];
    let start: Record<string, unknown> | undefined;
    do {
      const got = await svc.ddb.send(
        new QueryCommand({
          TableName: svc.config.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': historyPk(M) },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const i of got.Items ?? []) out.push({ sk: String(i.sk), bytes: (i.d as Uint8Array | undefined)?.length ?? 0 });
      start = got.LastEvaluatedKey;
    } while (start);
    return out;
  };
  const shardItems = async () => (await historyItems()).filter((i) => i.sk === shardSk(SHARD) || i.sk.startsWith(`${shardSk(SHARD)}#`));

  beforeAll(async () => {
    const table = `hist-parts-${randomBytes(4).toString('hex')}`;
    const raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: inject('dynamodbEndpoint'),
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(raw, table);
    const ddb = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    svc = { ddb, clock, config: { tableName: table }, log: () => undefined, market: dynamoMarket({ ddb, name: table, clock }) } as unknown as OperatorServices;
    store = new MarketStore(ddb, table);
    // The day candle and volume pages of 89 days, as merges leave them (plus a plain item in another shard).
    const rand = prng(82800);
    for (let d = FIRST; d <= LAST; d++) {
      const day = variantDay(KEYS, d, rand);
      day.candles.set(2589, { open: 10, high: 10, low: 10, close: 10, quantity: 1, openAt: d * DAY_MS, lastAt: d * DAY_MS });
      written.set(d, day);
      await store.writeCandlePage(M, 'd1', d, d * DAY_MS, day.candles, day.candles.keys());
      await store.writeVolumeShards(M, d, new Map([[shardOf(KEYS[0], PAGE_SHARDS), { page: day.volume, bookAt: null }]]));
    }
    expect(await store.commitMeta({ market: M, seq: 1, firstMergeAt: (FIRST + 1) * DAY_MS, newestScanAt: LAST * DAY_MS }, 0)).toBe(true);
  });

  it('compacts the market: the shard is written as parts, each item under the limit', async () => {
    const result = await compactHistories(svc, M, TODAY);
    expect(result.through).toBe(LAST);
    expect(result.days).toHaveLength(LAST - FIRST + 1);
    const items = await shardItems();
    expect(items.length).toBeGreaterThan(1);
    for (const i of items) expect(i.bytes).toBeLessThan(ITEM_LIMIT - 50 * 1024);
  }, 120_000);

  it('answers every day of every variant from the compacted history: single-item and batch reads, and the history answer', async () => {
    const src = readSources(svc);
    for (const key of [KEYS[0], KEYS[399], KEYS[400], KEYS[799]]) {
      const one = await itemDays(src, M, key, FIRST, TODAY, true);
      expect([...one.candles.keys()], `${key}`).toEqual([...written.keys()]);
      for (const [d, day] of written) {
        expect(one.candles.get(d)).toEqual(day.candles.get(key));
        expect(one.volume.get(d)).toEqual(day.volume.get(key));
      }
    }
    // 50 keys of the one shard, spread over its parts: the batch read gathers the parts holding any of them.
    const some = KEYS.filter((_, i) => i % 16 === 3);
    const many = await itemsDays(src, M, some, FIRST, TODAY, true);
    for (const key of some) expect(many.get(key)?.candles.size, `${key}`).toBe(written.size);
    // A single-item read of the shard reads only the part holding the key, not the whole shard.
    const page = await store.historyOf(M, KEYS[0]);
    const keysRead = new Set([...page.values()].flatMap((v) => [...v.candles.keys()]));
    expect(keysRead.has(KEYS[0])).toBe(true);
    expect(keysRead.size).toBeLessThan(KEYS.length);
    const reader = new MarketStore(svc.ddb, svc.config.tableName);
    await reader.historyOf(M, KEYS[0]);
    const one = reader.meter.read;
    reader.meter.reset();
    await reader.historyOf(M, [KEYS[0], KEYS[799]]);
    expect(one).toBeGreaterThan(0);
    expect(one).toBeLessThan(0.6 * reader.meter.read);
    // The whole-market read (compaction's) sees the whole shard.
    const all = (await store.histories(M)).get(SHARD) as HistoryPage;
    expect(all.size).toBe(written.size);
    expect(all.get(LAST)?.candles.size).toBe(KEYS.length);
    // The history answer: every variant with every day from FIRST on.
    const now = clock.now();
    const items = JSON.parse((await marketHistory(src, M, FIRST, now, { withVolume: true })).text) as Array<[number, unknown[], unknown[]]>;
    const variants = items.filter(([k]) => KEYS.includes(k));
    expect(variants).toHaveLength(KEYS.length);
    for (const [, candles, volume] of variants) {
      expect(candles).toHaveLength(written.size);
      expect(volume).toHaveLength(written.size);
    }
  }, 120_000);

  it('a later compaction that shrinks the shard to one item leaves no stale part', async () => {
    // 80 days on, no book since: compaction drops all but the last 10 kept days, which fit in one item.
    clock.set((TODAY + 80) * DAY_MS + 12 * HOUR_MS);
    await compactHistories(svc, M, TODAY + 80);
    const items = await shardItems();
    expect(items.map((i) => i.sk)).toEqual([shardSk(SHARD)]);
    expect((await historyItems()).filter((i) => i.sk.includes('#'))).toEqual([]);
    const kept = [...written.keys()].filter((d) => d >= TODAY + 80 - 90);
    expect(kept.length).toBeGreaterThan(0);
    const one = await itemDays(readSources(svc), M, KEYS[799], FIRST, TODAY + 80, true);
    expect([...one.candles.keys()]).toEqual(kept);
  }, 120_000);
});
