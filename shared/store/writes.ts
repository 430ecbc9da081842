/**
 * Conditional writes as the adapters make them. A write whose condition does not hold has lost a race (or
 * found nothing to change): that is an answer (false, null), not a failure; any other error is the store's
 * and is thrown. The table-bound commands name the table once, so each adapter states only its item.
 */
import {
  DeleteCommand,
  type DeleteCommandInput,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from './identity-items';
import type { Table } from './table';

type ConditionCheckInput = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['ConditionCheck']>;

/** The write's answer, or null when its condition did not hold. */
export async function unlessLost<T>(write: Promise<T>): Promise<T | null> {
  try {
    return await write;
  } catch (err) {
    if (isConditionFailure(err)) return null;
    throw err;
  }
}

/** Whether the write went through: false when its condition did not hold. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  return (await unlessLost(write.then(() => true))) === true;
}

export const updateItem = (t: Table, input: Omit<UpdateCommandInput, 'TableName'>) => t.ddb.send(new UpdateCommand({ ...input, TableName: t.name }));
export const putItem = (t: Table, input: Omit<PutCommandInput, 'TableName'>) => t.ddb.send(new PutCommand({ ...input, TableName: t.name }));
export const deleteItem = (t: Table, input: Omit<DeleteCommandInput, 'TableName'>) => t.ddb.send(new DeleteCommand({ ...input, TableName: t.name }));

/** One item of a transaction, its table left out (every item is on the adapter's table). */
export interface TransactItem {
  Put?: Omit<PutCommandInput, 'TableName'>;
  Update?: Omit<UpdateCommandInput, 'TableName'>;
  Delete?: Omit<DeleteCommandInput, 'TableName'>;
  ConditionCheck?: Omit<ConditionCheckInput, 'TableName'>;
}

/** A TransactWriteItems of `items`, each on the table. */
export const transact = (t: Pick<Table, 'ddb' | 'name'>, items: readonly TransactItem[]) =>
  t.ddb.send(
    new TransactWriteCommand({
      TransactItems: items.map((item) => Object.fromEntries(Object.entries(item).map(([kind, op]) => [kind, { ...op, TableName: t.name }]))),
    }),
  );
