/**
 * The catalogue's accounts (issue 23): one item per reporting account with its last upload (what expiry ages)
 * and its UTC day's count of keys new to the catalogue (the daily quota). One conditional write per upload.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from './identity-items';
import { catalogueAccountKey } from './keys';
import type { Table } from './table';

const DAY_MS = 86_400_000;
/** An upload that adds no key refreshes the account's last upload at most this often (a write saved per upload). */
const ACTIVITY_REFRESH_MS = DAY_MS;

/**
 * Notes an upload of `account` that adds `fresh` keys new to the catalogue at `now`; false (and nothing
 * written) when they would take the account past `newKeysPerDay` in `now`'s UTC day. Without a quota, or with
 * no new key, only the last upload is refreshed.
 */
export async function noteCatalogueUpload(t: Table, account: string, fresh: number, now: number, newKeysPerDay?: number): Promise<boolean> {
  const Key = catalogueAccountKey(account);
  const day = Math.floor(now / DAY_MS);
  const update = (UpdateExpression: string, ConditionExpression: string, values: Record<string, unknown>) =>
    t.ddb
      .send(
        new UpdateCommand({
          TableName: t.name,
          Key,
          UpdateExpression,
          ConditionExpression,
          // Only the names an expression uses: DynamoDB refuses unused ones.
          ExpressionAttributeNames: Object.fromEntries(
            ['day', 'last', 'added'].filter((n) => `${UpdateExpression} ${ConditionExpression}`.includes(`#${n}`)).map((n) => [`#${n}`, n]),
          ),
          ExpressionAttributeValues: values,
        }),
      )
      .then(
        () => true,
        (err) => {
          if (isConditionFailure(err)) return false;
          throw err;
        },
      );
  if (fresh === 0 || newKeysPerDay === undefined) {
    await update('SET #last = :now', 'attribute_not_exists(#last) OR #last <= :stale', { ':now': now, ':stale': now - ACTIVITY_REFRESH_MS });
    return true;
  }
  if (fresh > newKeysPerDay) return false;
  // Two tries: a racing upload may start the day between our two conditional writes.
  for (let attempt = 0; attempt < 2; attempt++) {
    // The same day: the count grows while it stays within the quota.
    if (
      await update('SET #last = :now ADD #added :n', '#day = :day AND #added <= :room', {
        ':now': now,
        ':n': fresh,
        ':day': day,
        ':room': newKeysPerDay - fresh,
      })
    )
      return true;
    // A first upload, or the first of a new day: the count starts again.
    if (await update('SET #last = :now, #day = :day, #added = :n', 'attribute_not_exists(#day) OR #day <> :day', { ':now': now, ':n': fresh, ':day': day }))
      return true;
  }
  // The day's count is full (or uploads kept racing: refused, and the app retries after Retry-After).
  return false;
}
