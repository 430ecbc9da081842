/**
 * DynamoDB adapter of Web Push: an account's subscriptions (by endpoint hash, with an owner item per endpoint
 * so another account can take it over) and the account's push window state (30 s throttle and grouping).
 */
import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { MarketAlert } from '../domain/alerts';
import type { BrowserSubscription, PushPrefs } from '../domain/push-subscription';
import type { PushState, StoredSubscription } from '../ports/settings';
import { num, str } from './identity-items';
import { PUSH_ENDPOINT_SK, PUSH_STATE_SK, PUSH_SUB_SK_PREFIX, pushEndpointPk, pushSubSk, userPk } from './keys';
import type { Table } from './table';
import { applied, deleteItem, putItem, transact } from './writes';

const PENDING_KEPT = 20;
const STATE_TTL_MS = 86_400_000;
export const endpointHash = (endpoint: string): string => createHash('sha256').update(endpoint, 'utf8').digest('hex');
const subKey = (userId: string, hash: string) => ({ pk: userPk(userId), sk: pushSubSk(hash) });
const ownerKey = (hash: string) => ({ pk: pushEndpointPk(hash), sk: PUSH_ENDPOINT_SK });
const stateKey = (userId: string) => ({ pk: userPk(userId), sk: PUSH_STATE_SK });

/**
 * Prefs are kept as JSON text, like the boards document: their other fields are the client's, kept as given,
 * and any JSON is storable as text (as a DynamoDB map, an empty key, a number past 10^125 or deep nesting is not).
 * Maps written before are still read.
 */
const prefsOf = (v: unknown): PushPrefs => (typeof v === 'string' ? (JSON.parse(v) as PushPrefs) : ((v as PushPrefs | undefined) ?? {}));

function toSubscription(item: Record<string, unknown>): StoredSubscription {
  return {
    endpoint: str(item.endpoint) ?? '',
    keys: (item.keys as StoredSubscription['keys']) ?? { p256dh: '', auth: '' },
    prefs: prefsOf(item.prefs),
    created: num(item.created) ?? 0,
  };
}

/** The account's subscriptions, oldest first. */
export async function listSubscriptions(t: Table, userId: string): Promise<StoredSubscription[]> {
  const out = await t.ddb.send(
    new QueryCommand({
      TableName: t.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': userPk(userId), ':p': PUSH_SUB_SK_PREFIX },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map(toSubscription).sort((a, b) => a.created - b.created || (a.endpoint < b.endpoint ? -1 : 1));
}

/**
 * Subscribes an endpoint for the account, or replaces its prefs (`prefs` undefined keeps them); an endpoint
 * another account held is taken over. Keeps at most `max` subscriptions per account: the oldest go.
 */
export async function putSubscription(
  t: Table,
  userId: string,
  sub: BrowserSubscription,
  prefs: PushPrefs | undefined,
  now: number,
  max: number,
): Promise<StoredSubscription> {
  const hash = endpointHash(sub.endpoint);
  const [owner, mine] = await Promise.all([
    t.ddb.send(new GetCommand({ TableName: t.name, Key: ownerKey(hash), ConsistentRead: true })),
    t.ddb.send(new GetCommand({ TableName: t.name, Key: subKey(userId, hash), ConsistentRead: true })),
  ]);
  const previousOwner = str(owner.Item?.userId);
  if (previousOwner && previousOwner !== userId) {
    await t.ddb.send(new DeleteCommand({ TableName: t.name, Key: subKey(previousOwner, hash) }));
  }
  const existing = mine.Item ? toSubscription(mine.Item) : null;
  const stored: StoredSubscription = { endpoint: sub.endpoint, keys: sub.keys, prefs: prefs ?? existing?.prefs ?? {}, created: existing?.created ?? now };
  await transact(t, [
    { Put: { Item: { ...subKey(userId, hash), ...stored, prefs: JSON.stringify(stored.prefs) } } },
    { Put: { Item: { ...ownerKey(hash), userId } } },
  ]);
  const all = await listSubscriptions(t, userId);
  const excess = all.filter((s) => s.endpoint !== sub.endpoint).slice(0, Math.max(0, all.length - max));
  await Promise.all(excess.map((s) => deleteSubscription(t, userId, s.endpoint)));
  return stored;
}

/** Removes one of the account's subscriptions; false when it held none for that endpoint. */
export async function deleteSubscription(t: Table, userId: string, endpoint: string): Promise<boolean> {
  const hash = endpointHash(endpoint);
  const out = await t.ddb.send(new DeleteCommand({ TableName: t.name, Key: subKey(userId, hash), ReturnValues: 'ALL_OLD' }));
  // The endpoint's owner entry goes only if it is still this account's.
  await applied(deleteItem(t, { Key: ownerKey(hash), ConditionExpression: 'userId = :u', ExpressionAttributeValues: { ':u': userId } }));
  return out.Attributes !== undefined;
}

/** The account's push window state (empty when it never pushed). */
export async function getPushState(t: Table, userId: string): Promise<PushState> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: stateKey(userId), ConsistentRead: true }));
  const i = out.Item;
  return {
    lastSent: num(i?.lastSent) ?? null,
    pending: Array.isArray(i?.pending) ? (i.pending as MarketAlert[]) : [],
    pendingCount: num(i?.pendingCount) ?? 0,
    flushAt: num(i?.flushAt) ?? null,
    rev: num(i?.rev) ?? 0,
  };
}

/** Writes the state if nobody else did since it was read (`rev`); false when another delivery won the race. */
export async function putPushState(t: Table, userId: string, state: PushState, now: number): Promise<boolean> {
  const item = {
    ...stateKey(userId),
    lastSent: state.lastSent,
    pending: state.pending.slice(-PENDING_KEPT),
    pendingCount: state.pendingCount,
    flushAt: state.flushAt,
    rev: state.rev + 1,
    ttl: Math.ceil((now + STATE_TTL_MS) / 1000),
  };
  return applied(
    putItem(t, {
      Item: item,
      ConditionExpression: state.rev === 0 ? 'attribute_not_exists(pk)' : '#rev = :rev',
      ...(state.rev === 0 ? {} : { ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': state.rev } }),
    }),
  );
}
