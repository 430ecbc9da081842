/** The table's batch writes: 25 puts a request, unprocessed items retried with backoff, units metered. */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Anything that sums consumed capacity (the market store's CapacityMeter). */
export interface WriteMeter {
  add(units: unknown, kind: 'write'): void;
}

/** Exponential backoff between retries of unprocessed items or missing parts, capped at 1 s. */
export const backoff = (attempt: number): Promise<void> => new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));

/** Puts every item, 25 a request, until DynamoDB has processed them all. */
export async function batchPut(ddb: DynamoDBDocumentClient, table: string, items: readonly Record<string, unknown>[], meter: WriteMeter): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let request: Record<string, Array<Record<string, unknown>>> | undefined = { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      const out = await ddb.send(new BatchWriteCommand({ RequestItems: request as never, ReturnConsumedCapacity: 'TOTAL' }));
      meter.add(out.ConsumedCapacity, 'write');
      request = out.UnprocessedItems as typeof request;
      if (request && Object.keys(request).length > 0) await backoff(attempt);
    }
  }
}
