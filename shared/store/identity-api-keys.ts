/**
 * DynamoDB adapter of the API key verification cache (by the key's SHA-256; the key itself is never stored),
 * which also remembers which keys the provider accepted before (the identity provider budget's priority).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_SEEN_MS } from '../domain/flood-limits';
import type { KeyVerdict } from '../ports/identity';
import { isLive, num, str, strings, ttlAt } from './identity-items';
import { API_KEY_SK, apiKeyPk } from './keys';
import type { Table } from './table';

const key = (keyHash: string) => ({ pk: apiKeyPk(keyHash), sk: API_KEY_SK });

/** The cached verdict of a key, or null when none is cached or it has expired. */
export async function getKeyVerdict(t: Table, keyHash: string, now: number): Promise<KeyVerdict | null> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: key(keyHash) }));
  const item = out.Item;
  const until = num(item?.until);
  if (!isLive(item, now) || until === undefined || until <= now) return null;
  if (item.ok !== true) return { ok: false, until };
  const userId = str(item.userId);
  if (!userId) return null;
  return { ok: true, userId, scopes: Array.isArray(item.scopes) ? strings(item.scopes) : null, until };
}

/** Caches a verdict until its `until`; an accepted key's item stays `KEY_SEEN_MS` longer, the record it was verified. */
export async function putKeyVerdict(t: Table, keyHash: string, v: KeyVerdict): Promise<void> {
  const item = v.ok ? { ok: true, userId: v.userId, scopes: v.scopes ?? undefined, until: v.until } : { ok: false, until: v.until };
  const ttl = ttlAt(v.ok ? v.until + KEY_SEEN_MS : v.until);
  await t.ddb.send(new PutCommand({ TableName: t.name, Item: { ...key(keyHash), ...item, ttl } }));
}

/** Whether the provider accepted the key within the last `KEY_SEEN_MS`: its item is still there and says so. */
export async function wasKeyVerified(t: Table, keyHash: string, now: number): Promise<boolean> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: key(keyHash) }));
  return isLive(out.Item, now) && out.Item.ok === true;
}
