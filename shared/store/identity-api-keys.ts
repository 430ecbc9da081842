/** DynamoDB adapter of the API key verification cache (by the key's SHA-256; the key itself is never stored). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Services } from '../services';
import { isLive, num, str, strings, ttlAt } from './identity-items';
import { API_KEY_SK, apiKeyPk } from './keys';

/** A verification result: the key's user and scopes, or a refusal; valid until `until` (service clock). */
export type KeyVerdict = { ok: true; userId: string; scopes: string[] | null; until: number } | { ok: false; until: number };

const key = (keyHash: string) => ({ pk: apiKeyPk(keyHash), sk: API_KEY_SK });

/** The cached verdict of a key, or null when none is cached or it has expired. */
export async function getKeyVerdict(svc: Services, keyHash: string, now: number): Promise<KeyVerdict | null> {
  const out = await svc.ddb.send(new GetCommand({ TableName: svc.config.tableName, Key: key(keyHash) }));
  const item = out.Item;
  const until = num(item?.until);
  if (!isLive(item, now) || until === undefined || until <= now) return null;
  if (item.ok !== true) return { ok: false, until };
  const userId = str(item.userId);
  if (!userId) return null;
  return { ok: true, userId, scopes: Array.isArray(item.scopes) ? strings(item.scopes) : null, until };
}

/** Caches a verdict until its `until`. */
export async function putKeyVerdict(svc: Services, keyHash: string, v: KeyVerdict): Promise<void> {
  const item = v.ok ? { ok: true, userId: v.userId, scopes: v.scopes ?? undefined, until: v.until } : { ok: false, until: v.until };
  await svc.ddb.send(new PutCommand({ TableName: svc.config.tableName, Item: { ...key(keyHash), ...item, ttl: ttlAt(v.until) } }));
}
