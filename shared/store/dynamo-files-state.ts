/** The DynamoDB adapter of a market's file state (one item per market; its updates drive `sealed` messages). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type FilesState, filesStateOf, type SealRes } from '../domain/files-state';
import type { FilesStatePort } from '../ports/market';
import { filesStateKey } from './keys';
import { bindAll, type Table } from './table';
import { applied, updateItem } from './writes';

/** The market's file state (empty before its first seal or snapshot). */
async function get(t: Table, market: string): Promise<FilesState> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: filesStateKey(market), ConsistentRead: true }));
  return filesStateOf(market, out.Item);
}

/**
 * Moves a resolution's sealed period from `previous` to `next` with the newest paths; false when another run
 * moved it meanwhile (two seal runs never both advance one period).
 */
async function advanceSealed(t: Table, market: string, res: SealRes, previous: number | null, next: number, paths: Record<string, string>): Promise<boolean> {
  const names: Record<string, string> = { '#r': res, '#m': 'market' };
  const values: Record<string, unknown> = { ':next': next, ':market': market };
  const sets = ['#r = :next', '#m = :market'];
  for (const [k, v] of Object.entries(paths)) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  if (previous !== null) values[':prev'] = previous;
  return applied(
    updateItem(t, {
      Key: filesStateKey(market),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: previous === null ? 'attribute_not_exists(#r)' : '#r = :prev',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

/** Records the newest snapshot hour (never moving it back). */
async function recordSnapshotHour(t: Table, market: string, hour: number): Promise<void> {
  // A later hour already stored stays.
  await applied(
    updateItem(t, {
      Key: filesStateKey(market),
      UpdateExpression: 'SET snapHour = :h, #m = :market',
      ConditionExpression: 'attribute_not_exists(snapHour) OR snapHour < :h',
      ExpressionAttributeNames: { '#m': 'market' },
      ExpressionAttributeValues: { ':h': hour, ':market': market },
    }),
  );
}

export const dynamoFilesState = (t: Table): FilesStatePort => bindAll(t, { get, advanceSealed, recordSnapshotHour });
