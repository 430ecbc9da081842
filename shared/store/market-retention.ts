/**
 * DynamoDB side of market retention (spec Retention): the per-market retention mark (so a run never scans
 * the table), deleting a period's page items, and rewriting row shards only while no merge intervened.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RowTable } from '../domain/merge';
import { encodeRows } from '../page-format/page-codec';
import { ROW_SHARDS, shardsTouched, splitShards } from '../page-format/shard-layout';
import type { PeriodKind, RetentionMark, RetentionPort } from '../ports/market';
import { candlePk, marketMetaKey, marketRetentionKey, rowsPk, shardSk, volumePk } from './keys';
import { queryPages } from './query';
import { applied, transact } from './writes';

export class RetentionStore implements RetentionPort {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async mark(market: string): Promise<RetentionMark | null> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: marketRetentionKey(market), ConsistentRead: true }));
    const i = out.Item;
    return i ? { ranAt: Number(i.ranAt), minute: Number(i.minute), hour: Number(i.hour), day: Number(i.day) } : null;
  }

  async putMark(market: string, mark: RetentionMark): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: { ...marketRetentionKey(market), ...mark } }));
  }

  async deletePeriod(market: string, kind: PeriodKind, period: number): Promise<number> {
    return this.deletePartition(kind === 'volume' ? volumePk(market, period) : candlePk(market, kind, period));
  }

  /** Deletes every item of a partition (one period's page shards); answers how many there were. */
  private async deletePartition(pk: string): Promise<number> {
    const keys: Array<{ pk: string; sk: string }> = [];
    for await (const page of queryPages(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk, sk',
    })) {
      for (const item of page.Items ?? []) keys.push({ pk: String(item.pk), sk: String(item.sk) });
    }
    for (let i = 0; i < keys.length; i += 25) {
      let request: Record<string, unknown[]> | undefined = { [this.table]: keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })) };
      for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
        const out = await this.ddb.send(new BatchWriteCommand({ RequestItems: request as never }));
        request = out.UnprocessedItems as typeof request;
        if (request && Object.keys(request).length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      }
    }
    return keys.length;
  }

  /**
   * Rewrites the row shards holding `deletedKeys` from `rows`, in one transaction that holds only while the
   * market's seq is still `seq` and no merge is under way (bumping META's `rowsRev`): a merge in between wins,
   * and the next run retries.
   */
  async rewriteRowsIfUnchanged(market: string, rows: RowTable, deletedKeys: readonly number[], seq: number): Promise<boolean> {
    const split = splitShards(rows, ROW_SHARDS);
    const puts = shardsTouched(deletedKeys, ROW_SHARDS).map((s) => ({
      Put: { TableName: this.table, Item: { pk: rowsPk(market), sk: shardSk(s), d: encodeRows(split[s], ROW_SHARDS) } },
    }));
    return applied(
      transact({ ddb: this.ddb, name: this.table }, [
        {
          // The check also bumps `rowsRev`: the rows change without a merge, and caches of rows key on it.
          Update: {
            Key: marketMetaKey(market),
            UpdateExpression: 'ADD #rev :one',
            ConditionExpression: '#seq = :seq AND (attribute_not_exists(#pending) OR #pending = :null)',
            ExpressionAttributeNames: { '#seq': 'seq', '#pending': 'pending', '#rev': 'rowsRev' },
            ExpressionAttributeValues: { ':seq': seq, ':null': null, ':one': 1 },
          },
        },
        ...puts,
      ]),
    );
  }
}
