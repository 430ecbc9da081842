/**
 * DynamoDB adapter of an account's missed pairing confirms: one item under the account holding the window's
 * start `w` and its count `n`. Every confirm of a well-formed code takes a place first (a conditional
 * increment, so concurrent sprays cannot pass) and a confirm that binds gives it back.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, ttlAt } from './identity-items';
import { PAIR_MISS_SK, userPk } from './keys';
import type { Table } from './table';
import { applied, updateItem } from './writes';

const key = (userId: string) => ({ pk: userPk(userId), sk: PAIR_MISS_SK });

/**
 * Takes a place in the account's current window (`windowMs` from its first counted confirm, at most `limit`
 * places); answers the window's start, or null when the window is full.
 */
export async function takePairingPlace(t: Table, userId: string, now: number, limit: number, windowMs: number): Promise<number | null> {
  const stale = now - windowMs;
  const same = {
    UpdateExpression: 'ADD n :one',
    ConditionExpression: 'w > :stale AND n < :max',
    ExpressionAttributeValues: { ':one': 1, ':stale': stale, ':max': limit },
  };
  const fresh = {
    UpdateExpression: 'SET w = :now, n = :one, #ttl = :ttl',
    ConditionExpression: 'attribute_not_exists(w) OR w <= :stale',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':one': 1, ':stale': stale, ':now': now, ':ttl': ttlAt(now + windowMs) },
  };
  // The third try covers a concurrent confirm that opened the window between the first two.
  for (const update of [same, fresh, same]) {
    try {
      const out = await t.ddb.send(new UpdateCommand({ TableName: t.name, Key: key(userId), ReturnValues: 'ALL_NEW', ...update }));
      return Number(out.Attributes?.w);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
  return null;
}

/** Gives a place back to the window it was taken in (a confirm that bound a code was no miss). */
export async function returnPairingPlace(t: Table, userId: string, windowStart: number): Promise<void> {
  // A new window opened since (the condition fails): the place is gone with the old one.
  await applied(
    updateItem(t, {
      Key: key(userId),
      UpdateExpression: 'ADD n :minus',
      ConditionExpression: 'w = :w AND n > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':w': windowStart, ':zero': 0 },
    }),
  );
}
