/**
 * Read units a table client consumes, counted from `ConsumedCapacity` (DynamoDB Local applies AWS's rules):
 * every read command is made to ask for it. Shared by the reads bench and the read-cache tests.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);

/** Counts the read units `client` consumes from now on; `take()` answers those since the last take. */
export function countReadUnits(client: DynamoDBDocumentClient, name: string): { take(): number } {
  let units = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const counted = READS.has(context.commandName ?? '');
      if (counted) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const cc = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      if (counted && cc) for (const c of Array.isArray(cc) ? cc : [cc]) units += (c as { CapacityUnits?: number }).CapacityUnits ?? 0;
      return out;
    },
    { step: 'initialize', name },
  );
  return {
    take() {
      const n = units;
      units = 0;
      return n;
    },
  };
}
