/**
 * History shards as DynamoDB items (MarketStore's history pages), split into parts past the item limit
 * (history-parts.ts). A shard is its head item, sk `<shard>`, holding the page (`d`), as single-item shards
 * always did; a split shard's head holds no page but every part's key range (`parts`) and its generation `gen`
 * (a hash of the parts' bytes), and its parts are `<shard>#<gen>#<i>`: a single-item read costs the small head
 * and the part holding its key.
 *
 * A generation's parts never change (same sk, same bytes), so a reader can never mix two writes: writes put
 * the new generation's parts under new keys first, then the head (the commit point), then delete the parts
 * of the generation the head replaced (the put returns it when the old head had parts). A reader that finds
 * a part its head names missing (a newer write deleted it, or an eventually consistent read lags) re-reads
 * the head and parts, at last strongly consistent. A write that crashes between its parts and its head leaves parts no head names;
 * compaction's retry writes the same content, so the same generation, and adopts them.
 *
 * Each head also carries `through`, the compaction mark its content covers (issue 27 point 4): a reader that
 * knows the mark can take an eventually consistent read of the shard when the head it got is stamped at or
 * past it, and read strongly consistent otherwise (a lagging replica, or a head stored before stamps).
 */

import { createHash } from 'node:crypto';
import { BatchGetCommand, DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeHistoryParts, encodeHistoryParts, partsHolding } from '../page-format/history-parts';
import { HISTORY_SHARDS } from '../page-format/shard-layout';
import type { HistoryPage, StoredHistoryShard } from '../ports/market';
import { backoff, batchPut } from './batch-write';
import { historyPk, shardSk } from './keys';
import { queryPages } from './query';

type Meter = { add(units: unknown, kind: 'read' | 'write'): void };
/** `through` (heads only): the compaction mark the writer stamped (ports/market.ts StoredHistoryShard). */
type Item = { pk: string; sk: string; d?: Uint8Array; parts?: Array<[number, number]>; gen?: string; through?: number };

const partSk = (shard: number, gen: string, part: number): string => `${shardSk(shard)}#${gen}#${part}`;
/** Re-reads of a shard caught mid-write before giving up. */
const READ_TRIES = 6;
/** Head puts in flight at once. */
const WRITE_CONCURRENCY = 16;

export class HistoryItems {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly meter: Meter,
    private readonly consistent: boolean,
  ) {}

  /** The shard's page, or only the parts holding `keys` when given. */
  async read(market: string, shard: number, keys?: readonly number[]): Promise<HistoryPage> {
    const stored = await this.bytes(market, shard, keys);
    return stored.length === 0 ? new Map() : decodeHistoryParts(stored);
  }

  /** The shard's stored bytes (its page, or the parts holding `keys`, every part without them); none when never written. */
  async bytes(market: string, shard: number, keys?: readonly number[]): Promise<Uint8Array[]> {
    return (await this.stored(market, shard, keys)).parts;
  }

  /** The shard's stored bytes as `bytes` reads them, with the head's stamp (null: none). */
  async stored(market: string, shard: number, keys?: readonly number[]): Promise<StoredHistoryShard> {
    for (let attempt = 0; ; attempt++) {
      const strong = this.consistent || attempt >= READ_TRIES - 1;
      const out = await this.ddb.send(
        new GetCommand({ TableName: this.table, Key: { pk: historyPk(market), sk: shardSk(shard) }, ConsistentRead: strong, ReturnConsumedCapacity: 'TOTAL' }),
      );
      this.meter.add(out.ConsumedCapacity, 'read');
      const head = out.Item as Item | undefined;
      if (!head) return { parts: [], through: null };
      const through = typeof head.through === 'number' ? head.through : null;
      if (!head.parts) return { parts: [head.d as Uint8Array], through };
      const wanted =
        keys === undefined ? head.parts.map((_, i) => i) : [...new Set(keys.flatMap((k) => partsHolding(head.parts ?? [], k)))].sort((a, b) => a - b);
      const parts = await this.parts(market, shard, head.gen as string, wanted, strong);
      const found = wanted.map((i) => parts.get(i)?.d);
      if (found.every((d) => d !== undefined)) return { parts: found as Uint8Array[], through };
      if (attempt >= READ_TRIES - 1) throw new Error(`history shard ${shard} of ${market}: a part its head names is missing`);
      await backoff(attempt);
    }
  }

  /** Every shard of the market: one Query of the partition, re-reading a shard caught mid-write alone. */
  async readAll(market: string): Promise<Map<number, HistoryPage>> {
    const heads = new Map<number, Item>();
    const parts = new Map<string, Item>();
    for (const item of await this.query(market)) {
      if (item.sk.includes('#')) parts.set(item.sk, item);
      else heads.set(Number(item.sk), item);
    }
    const out = new Map<number, HistoryPage>();
    for (const [shard, head] of heads) {
      if (!head.parts) {
        out.set(shard, decodeHistoryParts([head.d as Uint8Array]));
        continue;
      }
      const found = head.parts.map((_, i) => parts.get(partSk(shard, head.gen as string, i))?.d);
      out.set(shard, found.every((d) => d !== undefined) ? decodeHistoryParts(found as Uint8Array[]) : await this.read(market, shard));
    }
    return out;
  }

  /** Replaces whole shards, each as one item or as parts under the item limit; heads stamped `through` when given. */
  async write(market: string, pages: ReadonlyMap<number, HistoryPage>, through?: number): Promise<void> {
    const pk = historyPk(market);
    const heads: Item[] = [];
    const parts: Item[] = [];
    for (const [shard, page] of pages) {
      const encoded = encodeHistoryParts(page, HISTORY_SHARDS);
      const stamp = through === undefined ? {} : { through };
      if (encoded.length === 1) {
        heads.push({ pk, sk: shardSk(shard), d: encoded[0].d, ...stamp });
        continue;
      }
      const hash = createHash('sha256');
      for (const p of encoded) hash.update(p.d);
      const gen = hash.digest('hex').slice(0, 12);
      heads.push({ pk, sk: shardSk(shard), parts: encoded.map((p) => [p.lo, p.hi]), gen, ...stamp });
      for (let i = 0; i < encoded.length; i++) parts.push({ pk, sk: partSk(shard, gen, i), d: encoded[i].d });
    }
    await this.batchPut(parts);
    // Each head alone, so a head that replaces a split one learns which parts are now stale.
    for (let i = 0; i < heads.length; i += WRITE_CONCURRENCY) {
      await Promise.all(heads.slice(i, i + WRITE_CONCURRENCY).map((head) => this.putHead(head)));
    }
  }

  private async putHead(head: Item): Promise<void> {
    // Most shards were never split: a put that holds only then returns nothing (no old page sent back).
    try {
      const out = await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: head,
          ConditionExpression: 'attribute_not_exists(#parts)',
          ExpressionAttributeNames: { '#parts': 'parts' },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      this.meter.add(out.ConsumedCapacity, 'write');
      return;
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    }
    const out = await this.ddb.send(new PutCommand({ TableName: this.table, Item: head, ReturnValues: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL' }));
    this.meter.add(out.ConsumedCapacity, 'write');
    const old = out.Attributes as Item | undefined;
    // The replaced generation's parts are stale (a concurrent writer's parts are never among them).
    if (!old?.parts || old.gen === undefined || old.gen === head.gen) return;
    const shard = Number(head.sk);
    for (let i = 0; i < old.parts.length; i++) {
      const del = await this.ddb.send(
        new DeleteCommand({ TableName: this.table, Key: { pk: head.pk, sk: partSk(shard, old.gen, i) }, ReturnConsumedCapacity: 'TOTAL' }),
      );
      this.meter.add(del.ConsumedCapacity, 'write');
    }
  }

  private async parts(market: string, shard: number, gen: string, indexes: readonly number[], strong: boolean): Promise<Map<number, Item>> {
    const out = new Map<number, Item>();
    for (let i = 0; i < indexes.length; i += 100) {
      let request: Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead?: boolean }> | undefined = {
        [this.table]: { Keys: indexes.slice(i, i + 100).map((p) => ({ pk: historyPk(market), sk: partSk(shard, gen, p) })), ConsistentRead: strong },
      };
      for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
        const got = await this.ddb.send(new BatchGetCommand({ RequestItems: request, ReturnConsumedCapacity: 'TOTAL' }));
        this.meter.add(got.ConsumedCapacity, 'read');
        for (const item of (got.Responses?.[this.table] ?? []) as Item[]) out.set(Number(item.sk.slice(item.sk.lastIndexOf('#') + 1)), item);
        request = got.UnprocessedKeys as typeof request;
        if (request && Object.keys(request).length > 0) await backoff(attempt);
      }
    }
    return out;
  }

  private async query(market: string): Promise<Item[]> {
    const items: Item[] = [];
    for await (const out of queryPages(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': historyPk(market) },
      ConsistentRead: this.consistent,
      ReturnConsumedCapacity: 'TOTAL',
    })) {
      this.meter.add(out.ConsumedCapacity, 'read');
      for (const i of out.Items ?? []) items.push(i as Item);
    }
    return items;
  }

  private batchPut(items: Item[]): Promise<void> {
    return batchPut(this.ddb, this.table, items, this.meter);
  }
}
