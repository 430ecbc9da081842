/**
 * The merge log: one record per merge seq, written by the merge as its last step before the seq commit. The
 * table stream turns each new record into live `ah` messages; the files route and `hello` read it to list the
 * newest checkpoint and the change files after it. Records expire with the `live/` files (72 h).
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { MergeLogPort, MergeRecord } from '../ports/market';
import { mergePk, mergeSk } from './keys';
import { queryPages } from './query';

export const MERGE_RECORD_TTL_MS = 72 * 3_600_000;

/** True when a stream record's keys are those of a merge record. */
export const isMergeRecordKey = (pk: string, sk: string): boolean => /^MKT#[^#]+#seq$/.test(pk) && /^\d{12}$/.test(sk);

export class MergeLog implements MergeLogPort {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Writes a merge record; a redelivered merge writes the same record again (same key, same content). */
  async put(record: MergeRecord): Promise<void> {
    await this.ddb.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: mergePk(record.market), sk: mergeSk(record.seq), ...record, ttl: Math.ceil((record.mergedAt + MERGE_RECORD_TTL_MS) / 1000) },
      }),
    );
  }

  /** Records with seq greater than `afterSeq`, ascending (expired ones, whose ttl passed at `now`, left out). */
  async after(market: string, afterSeq: number, now: number): Promise<MergeRecord[]> {
    const out: MergeRecord[] = [];
    for await (const page of queryPages(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND sk > :sk',
      ExpressionAttributeValues: { ':pk': mergePk(market), ':sk': mergeSk(afterSeq) },
    })) {
      for (const item of page.Items ?? []) if (typeof item.ttl !== 'number' || item.ttl * 1000 > now) out.push(mergeRecordOf(item));
    }
    return out;
  }

  /** The newest record that carries a checkpoint (null when none is retained). */
  async newestCheckpoint(market: string, now: number): Promise<MergeRecord | null> {
    for await (const page of queryPages(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'attribute_exists(checkpointPath)',
      ExpressionAttributeValues: { ':pk': mergePk(market) },
      ScanIndexForward: false,
    })) {
      for (const item of page.Items ?? []) if (typeof item.ttl !== 'number' || item.ttl * 1000 > now) return mergeRecordOf(item);
    }
    return null;
  }
}

/** A merge record from its stored item (or a stream image of it). */
export function mergeRecordOf(item: Record<string, unknown>): MergeRecord {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...rest } = item;
  return rest as unknown as MergeRecord;
}
