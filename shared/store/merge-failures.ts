/**
 * The poison budget of accepted uploads (docs/failure-model.md): how often a book's merge failed for a
 * reason that was not a dependency's. SQS's receive count cannot tell, because it grows on every receive,
 * outages included; this count grows only when the table is up, which a non-dependency failure implies.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from '../clock';
import type { MergeFailuresPort } from '../ports/market';
import { ttlAt } from './identity-items';
import { mergeFailureKey } from './keys';
import type { Table } from './table';

/** Longer than a message can wait in its queue and dead-letter queue. */
const KEEP_MS = 30 * DAY_MS;

/** The DynamoDB adapter of the poison budget: one counter item per market and upload. */
export const dynamoMergeFailures = (t: Table): MergeFailuresPort => ({
  async count(market: string, uploadId: string, error: string, now: number): Promise<number> {
    const out = await t.ddb.send(
      new UpdateCommand({
        TableName: t.name,
        Key: mergeFailureKey(market, uploadId),
        UpdateExpression: 'ADD #failures :one SET #error = :error, #at = :now, #ttl = :ttl',
        ExpressionAttributeNames: { '#failures': 'failures', '#error': 'error', '#at': 'failedAt', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':error': error.slice(0, 500), ':now': now, ':ttl': ttlAt(now + KEEP_MS) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.failures ?? 1);
  },
});
