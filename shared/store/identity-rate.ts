/** DynamoDB adapter of per-caller request counters (one item per caller and minute, gone after the minute). */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MINUTE_MS, minuteOf } from '../clock';
import { ttlAt } from './identity-items';
import { ratePk, rateSk } from './keys';
import type { Table } from './table';

/** Counts `n` requests of a caller in the current minute (one atomic `ADD`); answers the minute's count so far. */
export async function countRequest(t: Table, callerId: string, now: number, n = 1): Promise<number> {
  const minute = minuteOf(now);
  const out = await t.ddb.send(
    new UpdateCommand({
      TableName: t.name,
      Key: { pk: ratePk(callerId), sk: rateSk(minute) },
      UpdateExpression: 'ADD n :n SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      // Kept a minute past its end: the item is keyed by minute, so a stale one is never read again.
      ExpressionAttributeValues: { ':n': n, ':ttl': ttlAt((minute + 2) * MINUTE_MS) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.n ?? n);
}
