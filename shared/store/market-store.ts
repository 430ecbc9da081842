/**
 * The market data store (DESIGN: packed pages). A market's rows live in ROW_SHARDS key shards; candles of
 * every period and volume estimates of every day in PAGE_SHARDS key shards (one item per period and shard,
 * all under one pk so a whole period is one Query); day history is compacted daily into HISTORY_SHARDS fine
 * shards so one item's 90 days cost a single small read. Adapters return domain types, never raw items.
 */

import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS, dayOf, HOUR_MS } from '../clock';
import type { Candle, CandlePage, CandleRes } from '../domain/candles';
import type { RowTable } from '../domain/merge';
import { periodExpiresAt } from '../domain/retention';
import type { VolumePage } from '../domain/volume-estimate';
import { type CandleCloses, decodeCandlePartsCloses, decodeShardCloses, type ShardCloses } from '../page-format/page-closes';
import {
  decodeCandleParts,
  decodeCandles,
  decodeRows,
  decodeVolume,
  decodeVolumeOf,
  encodeCandlePartsAsync,
  encodeCandles,
  encodeRowShardsAsync,
  encodeVolume,
} from '../page-format/page-codec';
import { HISTORY_SHARDS, PAGE_SHARDS, ROW_SHARDS, shardOf, shardsTouched } from '../page-format/shard-layout';
import {
  type DayFold,
  emptyMarketMeta,
  type HistoryPage,
  type MarketMeta,
  type MarketPages,
  type PendingMerge,
  type StoredHistoryShard,
  type VolumeShard,
} from '../ports/market';
import { metric } from '../telemetry/function-telemetry';
import { METRIC } from '../telemetry/metric-names';
import { backoff, batchPut } from './batch-write';
import { HistoryItems } from './history-items';
import { candlePk, daySoFarPk, historyMarkKey, marketMetaKey, rowsPk, shardSk, volumePk } from './keys';
import { queryPages } from './query';
import { unlessLost } from './writes';

/** Sums `ConsumedCapacity` of every call, for the cost benchmark. */
export class CapacityMeter {
  read = 0;
  write = 0;
  add(
    units:
      | Array<{ ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }>
      | { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }
      | undefined,
    kind: 'read' | 'write',
  ): void {
    for (const u of Array.isArray(units) ? units : units ? [units] : []) {
      const n = (kind === 'read' ? u.ReadCapacityUnits : u.WriteCapacityUnits) ?? u.CapacityUnits ?? 0;
      this[kind] += n;
      if (kind === 'write' && n > 0) metric(METRIC.writeUnits, n);
    }
  }
  reset(): void {
    this.read = 0;
    this.write = 0;
  }
}

/** A stored page; candle page shards also have `c`, their head (page-codec.ts: CandleParts), unless stored before it. */
type PageItem = { pk: string; sk: string; d: Uint8Array; c?: Uint8Array; ttl?: number; b?: number; seq?: number };
/** A candle page shard read for its closes: the head, or (a shard stored before the split) the whole page under `d`. */
type HeadItem = { pk: string; sk: string; c?: Uint8Array; d?: Uint8Array };
/** The cold series reads only the heads of candle page shards: half the bytes DynamoDB sends and the SDK decodes. */
const HEAD_ONLY = { names: { '#pk': 'pk', '#sk': 'sk', '#c': 'c' }, expression: '#pk, #sk, #c' };
const WHOLE_PAGE = { names: { '#pk': 'pk', '#sk': 'sk', '#d': 'd' }, expression: '#pk, #sk, #d' };
type Projection = typeof HEAD_ONLY | typeof WHOLE_PAGE;

/** The `ttl` (seconds) of a period's page: retention deletes it then; DynamoDB's TTL is the free backstop. */
const pageTtl = (res: CandleRes, period: number): number => Math.ceil(periodExpiresAt(res, period) / 1000);

export class MarketStore implements MarketPages {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    readonly meter: CapacityMeter = new CapacityMeter(),
    /** Strongly consistent page reads: the merge reads what the previous merge just wrote. */
    private readonly consistent = false,
  ) {
    this.history = new HistoryItems(ddb, table, meter, consistent);
  }

  private readonly history: HistoryItems;

  // ── meta ──

  async meta(market: string): Promise<MarketMeta> {
    const out = await this.ddb.send(
      new GetCommand({ TableName: this.table, Key: marketMetaKey(market), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
    );
    this.meter.add(out.ConsumedCapacity, 'read');
    if (!out.Item) return emptyMarketMeta(market);
    const { pk: _pk, sk: _sk, ...rest } = out.Item;
    return { ...emptyMarketMeta(market), ...(rest as Partial<MarketMeta>), market };
  }

  /**
   * Commits a merge's new state: succeeds only when the stored seq is still `expectedSeq`, so two merges can
   * never take the same seq. Returns false when another merge got there first.
   */
  async commitMeta(next: Pick<MarketMeta, 'market'> & Partial<MarketMeta>, expectedSeq: number): Promise<boolean> {
    const { market: _m, ...fields } = next;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':expected': expectedSeq };
    const sets: string[] = [];
    // Only the fields given are set, so a merge never writes back a field another job owns (e.g. historyThrough).
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined) continue;
      names[`#${k}`] = k;
      values[`:${k}`] = v;
      sets.push(`#${k} = :${k}`);
    }
    const out = await unlessLost(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: marketMetaKey(next.market),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: expectedSeq === 0 ? 'attribute_not_exists(#seq) OR #seq = :expected' : '#seq = :expected',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    if (!out) return false;
    this.meter.add(out.ConsumedCapacity, 'write');
    return true;
  }

  /**
   * Records the merge about to take seq `pending.seq`, before any page is written; holds only while the
   * stored seq is still the one before it. False when another merge got there first.
   */
  async markPending(market: string, pending: PendingMerge): Promise<boolean> {
    const out = await unlessLost(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: marketMetaKey(market),
          UpdateExpression: 'SET #pending = :pending',
          ConditionExpression: pending.seq === 1 ? 'attribute_not_exists(#seq) OR #seq = :before' : '#seq = :before',
          ExpressionAttributeNames: { '#pending': 'pending', '#seq': 'seq' },
          ExpressionAttributeValues: { ':pending': pending, ':before': pending.seq - 1 },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    if (!out) return false;
    this.meter.add(out.ConsumedCapacity, 'write');
    return true;
  }

  // ── rows ──

  /** The market's whole table. */
  async rows(market: string): Promise<RowTable> {
    const out: RowTable = new Map();
    for (const item of await this.queryAll(rowsPk(market))) decodeRows(item.d, out);
    return out;
  }

  /** The rows of `keys` (their shards only). */
  async rowsOf(market: string, keys: readonly number[]): Promise<RowTable> {
    const shards = [...new Set(keys.map((k) => shardOf(k, ROW_SHARDS)))];
    const items = await this.batchGet(shards.map((s) => ({ pk: rowsPk(market), sk: shardSk(s) })));
    const wanted = new Set(keys);
    const out: RowTable = new Map();
    for (const item of items) for (const [k, v] of decodeRows(item.d)) if (wanted.has(k)) out.set(k, v);
    return out;
  }

  /** Whole row shards by shard (the API's read caches keep whole shards, so other keys of a shard hit too). */
  async rowShards(market: string, shards: readonly number[]): Promise<Map<number, RowTable>> {
    const items = await this.batchGet(shards.map((s) => ({ pk: rowsPk(market), sk: shardSk(s) })));
    return new Map(items.map((item) => [Number(item.sk), decodeRows(item.d)]));
  }

  /** Rewrites the row shards that hold `changedKeys`, from the full table. */
  async writeRows(market: string, rows: RowTable, changedKeys: Iterable<number>): Promise<void> {
    const pages = await encodeRowShardsAsync(rows, ROW_SHARDS, shardsTouched(changedKeys, ROW_SHARDS));
    await this.batchPut([...pages].map(([s, d]) => ({ pk: rowsPk(market), sk: shardSk(s), d })));
  }

  // ── candles and volume ──

  /** One whole period's candles (all shards). */
  async candlePage(market: string, res: CandleRes, period: number): Promise<CandlePage> {
    const page: CandlePage = new Map();
    for (const item of await this.queryAll(candlePk(market, res, period))) decodeCandleParts(item, page);
    return page;
  }

  /** One whole period's closes and quantities as each shard's columns (no candle objects: the recent series). */
  async candleCloses(market: string, res: CandleRes, period: number): Promise<CandleCloses[]> {
    const items = await this.wholeWhereHeadless(await this.queryAll(candlePk(market, res, period), HEAD_ONLY));
    return items.map((item) => decodeCandlePartsCloses(item));
  }

  /**
   * One key shard's closes and quantities over several periods (periods without it left out; one block when
   * they list the same keys): the cold recent series reads a whole market shard by shard, folding each shard
   * as it arrives instead of holding every period's whole page at once. Only the shards' heads are read.
   */
  async candleClosesOfShard(market: string, res: CandleRes, periods: readonly number[], shard: number): Promise<ShardCloses> {
    const heads = await this.batchGet(
      periods.map((p) => ({ pk: candlePk(market, res, p), sk: shardSk(shard) })),
      HEAD_ONLY,
    );
    return decodeShardCloses((await this.wholeWhereHeadless(heads)).map((item) => [Number(item.pk.slice(item.pk.lastIndexOf('#') + 1)), item] as const));
  }

  /** Head-only reads, with the whole page read again for shards stored before the split (no head). */
  private async wholeWhereHeadless(items: HeadItem[]): Promise<HeadItem[]> {
    const headless = items.filter((i) => i.c === undefined);
    if (headless.length === 0) return items;
    const whole = await this.batchGet(
      headless.map((i) => ({ pk: i.pk, sk: i.sk })),
      WHOLE_PAGE,
    );
    return [...items.filter((i) => i.c !== undefined), ...whole];
  }

  /** Candles of `keys` over several periods (only their shards are read): period → key → candle. */
  async candlesOf(market: string, res: CandleRes, periods: readonly number[], keys: readonly number[]): Promise<Map<number, Map<number, Candle>>> {
    const shards = [...new Set(keys.map((k) => shardOf(k, PAGE_SHARDS)))];
    const wanted = new Set(keys);
    const items = await this.batchGet(periods.flatMap((p) => shards.map((s) => ({ pk: candlePk(market, res, p), sk: shardSk(s) }))));
    const out = new Map<number, Map<number, Candle>>();
    for (const item of items) {
      const period = Number(item.pk.slice(item.pk.lastIndexOf('#') + 1));
      const into = out.get(period) ?? new Map<number, Candle>();
      for (const [k, c] of decodeCandleParts(item).page) if (wanted.has(k)) into.set(k, c);
      out.set(period, into);
    }
    return out;
  }

  /** Rewrites the shards of a period's page that hold `changedKeys` (each as its head `c` and rest `d`). */
  async writeCandlePage(market: string, res: CandleRes, period: number, start: number, page: CandlePage, changedKeys: Iterable<number>): Promise<void> {
    const ttl = pageTtl(res, period);
    const pages = await encodeCandlePartsAsync(page, start, PAGE_SHARDS, shardsTouched(changedKeys, PAGE_SHARDS));
    await this.batchPut([...pages].map(([s, { c, d }]) => ({ pk: candlePk(market, res, period), sk: shardSk(s), c, d, ttl })));
  }

  async volumePage(market: string, day: number): Promise<VolumePage> {
    const page: VolumePage = new Map();
    // Each shard decodes straight into the day's map (no per-shard map copied over).
    for (const item of await this.queryAll(volumePk(market, day))) decodeVolume(item.d, page);
    return page;
  }

  async volumeOf(market: string, days: readonly number[], keys: readonly number[]): Promise<Map<number, VolumePage>> {
    const shards = [...new Set(keys.map((k) => shardOf(k, PAGE_SHARDS)))];
    const wanted = new Set(keys);
    const items = await this.batchGet(days.flatMap((d) => shards.map((s) => ({ pk: volumePk(market, d), sk: shardSk(s) }))));
    const out = new Map<number, VolumePage>();
    for (const item of items) {
      const day = Number(item.pk.slice(item.pk.lastIndexOf('#') + 1));
      out.set(day, decodeVolumeOf(item.d, wanted, out.get(day) ?? new Map()));
    }
    return out;
  }

  /** Whole volume shards of days (those stored). */
  async volumeShardsOf(
    market: string,
    wanted: ReadonlyArray<{ day: number; shard: number }>,
  ): Promise<Array<{ day: number; shard: number; page: VolumePage }>> {
    const items = await this.batchGet(wanted.map((w) => ({ pk: volumePk(market, w.day), sk: shardSk(w.shard) })));
    return items.map((item) => ({ day: Number(item.pk.slice(item.pk.lastIndexOf('#') + 1)), shard: Number(item.sk), page: decodeVolume(item.d) }));
  }

  /** A day's volume page by key shard, with the newest book each shard already holds. */
  async volumeShards(market: string, day: number): Promise<Map<number, VolumeShard>> {
    const out = new Map<number, VolumeShard>();
    for (const item of await this.queryAll(volumePk(market, day)))
      out.set(Number(item.sk), { page: decodeVolume(item.d), bookAt: typeof item.b === 'number' ? item.b : null });
    return out;
  }

  /** Writes whole volume shards with their book marks (a redelivered merge skips shards already holding its book). */
  async writeVolumeShards(market: string, day: number, shards: ReadonlyMap<number, VolumeShard>): Promise<void> {
    const ttl = pageTtl('d1', day);
    await this.batchPut(
      [...shards].map(([s, v]) => ({
        pk: volumePk(market, day),
        sk: shardSk(s),
        d: encodeVolume(v.page, PAGE_SHARDS),
        ttl,
        ...(v.bookAt === null ? {} : { b: v.bookAt }),
      })),
    );
  }

  // ── day history ──

  /** The compacted history page holding `key`, or all of `keys` (one shard's): only the parts holding them. */
  async historyOf(market: string, key: number | readonly number[]): Promise<HistoryPage> {
    const keys = typeof key === 'number' ? [key] : key;
    if (keys.length === 0) return new Map();
    return this.history.read(market, shardOf(keys[0], HISTORY_SHARDS), keys);
  }

  async historyShardBytes(market: string, shard: number): Promise<Uint8Array[]> {
    return this.history.bytes(market, shard);
  }

  async historyShard(market: string, shard: number, keys?: readonly number[]): Promise<StoredHistoryShard> {
    return this.history.stored(market, shard, keys);
  }

  /** Every history shard (for compaction and whole-market history reads). */
  async histories(market: string): Promise<Map<number, HistoryPage>> {
    return this.history.readAll(market);
  }

  /** Replaces whole history shards stamped `through`; a shard past the item limit is written as parts (history-items.ts). */
  async writeHistories(market: string, pages: ReadonlyMap<number, HistoryPage>, through?: number): Promise<void> {
    await this.history.write(market, pages, through);
  }

  async historyMark(market: string): Promise<number | null> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: historyMarkKey(market), ReturnConsumedCapacity: 'TOTAL' }));
    this.meter.add(out.ConsumedCapacity, 'read');
    return typeof out.Item?.through === 'number' ? out.Item.through : null;
  }

  async putHistoryMark(market: string, through: number, at: number): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: { ...historyMarkKey(market), through, at } }));
  }

  // ── single shards and the day-so-far folds ──

  async candleShards(
    market: string,
    res: CandleRes,
    wanted: ReadonlyArray<{ period: number; shard: number }>,
  ): Promise<Array<{ period: number; shard: number; page: CandlePage }>> {
    const items = await this.batchGet(wanted.map((w) => ({ pk: candlePk(market, res, w.period), sk: shardSk(w.shard) })));
    return items.map((item) => ({ period: Number(item.pk.slice(item.pk.lastIndexOf('#') + 1)), shard: Number(item.sk), page: decodeCandleParts(item).page }));
  }

  async dayFolds(market: string, hour: number, shards: readonly number[], now: number): Promise<Map<number, DayFold>> {
    const out = new Map<number, DayFold>();
    const items = await this.batchGet(shards.map((s) => ({ pk: daySoFarPk(market, hour), sk: shardSk(s) })));
    for (const item of items as Array<PageItem & { seq?: number }>) {
      if (typeof item.ttl === 'number' && item.ttl * 1000 <= now) continue;
      out.set(Number(item.sk), { page: decodeCandles(item.d).page, seq: Number(item.seq ?? 0) });
    }
    return out;
  }

  async writeDayFolds(market: string, hour: number, folds: ReadonlyMap<number, CandlePage>, seq: number): Promise<void> {
    const start = dayOf(hour * HOUR_MS) * DAY_MS;
    // Kept until the next day's first hour no longer needs it as a base (it never does): the day plus an hour.
    const ttl = Math.ceil((start + 25 * HOUR_MS) / 1000);
    await this.batchPut(
      [...folds].map(([s, page]) => ({ pk: daySoFarPk(market, hour), sk: shardSk(s), d: encodeCandles(page, start, PAGE_SHARDS), seq, ttl })),
    );
  }

  // ── primitives ──

  /** Every item of a partition (pages are binary under `d`), only the projected attributes when given. */
  private async queryAll(pk: string): Promise<PageItem[]>;
  private async queryAll(pk: string, projection: Projection): Promise<HeadItem[]>;
  private async queryAll(pk: string, projection?: Projection): Promise<PageItem[]> {
    const items: PageItem[] = [];
    for await (const out of queryPages(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: projection?.names ?? { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: projection?.expression,
      ConsistentRead: this.consistent,
      ReturnConsumedCapacity: 'TOTAL',
    })) {
      this.meter.add(out.ConsumedCapacity, 'read');
      for (const i of out.Items ?? []) items.push(i as PageItem);
    }
    return items;
  }

  private async batchGet(keys: Array<{ pk: string; sk: string }>): Promise<PageItem[]>;
  private async batchGet(keys: Array<{ pk: string; sk: string }>, projection: Projection): Promise<HeadItem[]>;
  private async batchGet(keys: Array<{ pk: string; sk: string }>, projection?: Projection): Promise<PageItem[]> {
    const items: PageItem[] = [];
    const projected = projection ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names } : {};
    for (let i = 0; i < keys.length; i += 100) {
      let request: Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead?: boolean }> | undefined = {
        [this.table]: { Keys: keys.slice(i, i + 100), ConsistentRead: this.consistent, ...projected },
      };
      for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
        const out = await this.ddb.send(new BatchGetCommand({ RequestItems: request, ReturnConsumedCapacity: 'TOTAL' }));
        this.meter.add(out.ConsumedCapacity, 'read');
        for (const item of out.Responses?.[this.table] ?? []) items.push(item as PageItem);
        request = out.UnprocessedKeys as typeof request;
        if (request && Object.keys(request).length > 0) await backoff(attempt);
      }
    }
    return items;
  }

  private batchPut(items: PageItem[]): Promise<void> {
    return batchPut(this.ddb, this.table, items, this.meter);
  }
}
