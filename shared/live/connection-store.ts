/**
 * Live sockets in DynamoDB (spec: one socket follows one market and is handed to one hub of it, at most
 * 2000 sockets per hub). Per socket: its record in its hub's partition (what the fan-out reads; the record's
 * INSERT drives `hello`), a pointer by connection id (`$default` and `$disconnect` know only the id) and an
 * entry under its account (role changes, alerts and device deletion find the account's sockets). A hub's
 * counter admits a socket with a conditional increment, so a hub never holds more than 2000.
 */
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Claims, Feature, Role } from '../domain/roles';
import type { Services } from '../services';
import { isConditionFailure } from '../store/identity-items';
import { queryAll as queryItems } from '../store/query';
import { connPointerKey, LIVE_USER_SK_PREFIX, liveConnPk, liveHubSk, liveHubsPk, liveUserSk, userPk } from '../store/keys';
import type { SocketKind } from './credentials';

/** Sockets per hub (spec Limits). */
export const HUB_SIZE = 2000;

export interface LiveConnection {
  connectionId: string;
  market: string;
  hub: number;
  userId: string;
  kind: SocketKind;
  /** The device of a device socket (its deletion closes the socket with 4401). */
  deviceId?: string;
  claims: Claims;
  /** An API key's scopes (null: all of its user's features). */
  scopes: string[] | null;
  roles: Role[];
  features: Feature[];
  historyDays: number;
  /** When the credential stops being valid (null: a device's, until it is deleted). */
  validUntil: number | null;
  connectedAt: number;
  /**
   * The caller's rate-limit key at the upgrade (the address CloudFront saw, IPv6 by /64). Renewals meter API
   * key lookups by it: a `$default` event's own source address is CloudFront's, shared by every viewer.
   */
  addressKey?: string;
  /** Set once `hello` is being sent: notices before it would precede the first message. */
  ready: boolean;
}

export type NewConnection = Omit<LiveConnection, 'hub' | 'ready'>;

/** What sending to a socket and forgetting it need. */
export type SocketRef = Pick<LiveConnection, 'connectionId' | 'market' | 'hub' | 'userId'>;

/** A socket as the fan-out reads it: where it is and what it may read (one projected attribute). */
export interface SocketAudience extends SocketRef {
  ready: boolean;
  features: Feature[];
  historyDays: number;
  /** `features|historyDays`: sockets with the same audience share one message text. */
  audience: string;
}

/** The compact audience attribute kept with each socket (`aud`), so the fan-out reads a hub cheaply. */
export const audienceKey = (features: readonly string[], historyDays: number): string => `${features.join(',')}|${historyDays}`;

const table = (svc: Services) => svc.config.tableName;
const connKey = (c: Pick<LiveConnection, 'market' | 'hub' | 'connectionId'>) => ({ pk: liveConnPk(c.market, c.hub), sk: c.connectionId });
const userKey = (c: Pick<LiveConnection, 'userId' | 'connectionId'>) => ({ pk: userPk(c.userId), sk: liveUserSk(c.connectionId) });

/** The first hub seen with room, per market: a warm function starts looking there. */
const firstOpenHub = new Map<string, number>();

/** A socket from its stored item (or a stream image of it). */
export function toConnection(item: Record<string, unknown>): LiveConnection {
  const { pk: _pk, sk: _sk, aud: _aud, ...rest } = item;
  const c = rest as unknown as LiveConnection;
  return { ...c, claims: c.claims ?? {}, scopes: c.scopes ?? null, ready: c.ready === true, validUntil: c.validUntil ?? null };
}

/** Takes a place in the market's first hub with room; answers the hub. */
async function takeHubPlace(svc: Services, market: string): Promise<number> {
  for (let hub = firstOpenHub.get(market) ?? 0; ; hub++) {
    try {
      await svc.ddb.send(
        new UpdateCommand({
          TableName: table(svc),
          Key: { pk: liveHubsPk(market), sk: liveHubSk(hub) },
          UpdateExpression: 'SET hub = :hub ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': HUB_SIZE, ':hub': hub },
        }),
      );
      firstOpenHub.set(market, hub);
      return hub;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
}

async function releaseHubPlace(svc: Services, market: string, hub: number): Promise<void> {
  await svc.ddb.send(
    new UpdateCommand({ TableName: table(svc), Key: { pk: liveHubsPk(market), sk: liveHubSk(hub) }, UpdateExpression: 'ADD n :minus', ExpressionAttributeValues: { ':minus': -1 } }),
  );
  const known = firstOpenHub.get(market);
  if (known === undefined || hub < known) firstOpenHub.set(market, hub);
}

/** Stores a new socket in a hub with room; answers it as stored. */
export async function addConnection(svc: Services, c: NewConnection): Promise<LiveConnection> {
  const hub = await takeHubPlace(svc, c.market);
  const conn: LiveConnection = { ...c, hub, ready: false };
  const where = { market: c.market, hub };
  await svc.ddb.send(
    new BatchWriteCommand({
      RequestItems: {
        [table(svc)]: [
          { PutRequest: { Item: { ...connKey(conn), ...conn, aud: audienceKey(c.features, c.historyDays) } } },
          { PutRequest: { Item: { ...connPointerKey(c.connectionId), ...where, userId: c.userId } } },
          { PutRequest: { Item: { ...userKey(conn), ...where } } },
        ],
      },
    }),
  );
  return conn;
}

/** A socket by connection id, or null when it is gone. */
export async function getConnection(svc: Services, connectionId: string): Promise<LiveConnection | null> {
  const ptr = await svc.ddb.send(new GetCommand({ TableName: table(svc), Key: connPointerKey(connectionId), ConsistentRead: true }));
  if (!ptr.Item) return null;
  return connectionAt(svc, { connectionId, market: String(ptr.Item.market), hub: Number(ptr.Item.hub) });
}

/** A socket's record where its pointer says it is, or null when it is gone. */
export async function connectionAt(svc: Services, at: Pick<LiveConnection, 'connectionId' | 'market' | 'hub'>): Promise<LiveConnection | null> {
  const out = await svc.ddb.send(new GetCommand({ TableName: table(svc), Key: connKey(at), ConsistentRead: true }));
  return out.Item ? toConnection(out.Item) : null;
}

/** Where a socket is, with how many client messages it sent in the current minute (this one included). */
export interface MessageCount {
  at: Pick<LiveConnection, 'connectionId' | 'market' | 'hub' | 'userId'>;
  count: number;
}

/**
 * Counts a client message on the socket's pointer item, atomically, in place of reading the pointer (so the
 * meter costs no extra request): `mw` is the minute counted, `mn` its count. Null when the socket is gone.
 */
export async function countSocketMessage(svc: Services, connectionId: string, minute: number): Promise<MessageCount | null> {
  const same = {
    UpdateExpression: 'ADD mn :one',
    ConditionExpression: 'mw = :w',
    ExpressionAttributeValues: { ':one': 1, ':w': minute },
  };
  // A new minute (or the first message) restarts the count; a stale minute never counts again.
  const fresh = {
    UpdateExpression: 'SET mw = :w, mn = :one',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(mw) OR mw < :w)',
    ExpressionAttributeValues: { ':one': 1, ':w': minute },
  };
  // The third try covers a concurrent message that started the minute between the first two.
  for (const update of [same, fresh, same]) {
    try {
      const out = await svc.ddb.send(new UpdateCommand({ TableName: table(svc), Key: connPointerKey(connectionId), ReturnValues: 'ALL_NEW', ...update }));
      const item = out.Attributes ?? {};
      return { at: { connectionId, market: String(item.market), hub: Number(item.hub), userId: String(item.userId) }, count: Number(item.mn ?? 1) };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
  return null;
}

/** Forgets a socket (closed, gone, or closed by us); the hub's place is given back once. Answers whether it was stored. */
export async function removeConnection(svc: Services, c: SocketRef): Promise<boolean> {
  const out = await svc.ddb.send(new DeleteCommand({ TableName: table(svc), Key: connKey(c), ReturnValues: 'ALL_OLD' }));
  await Promise.all([
    svc.ddb.send(new DeleteCommand({ TableName: table(svc), Key: connPointerKey(c.connectionId) })),
    svc.ddb.send(new DeleteCommand({ TableName: table(svc), Key: userKey(c) })),
  ]);
  if (!out.Attributes) return false;
  await releaseHubPlace(svc, c.market, c.hub);
  return true;
}

/** Forgets a socket known only by its id (`$disconnect`). */
export async function removeConnectionById(svc: Services, connectionId: string): Promise<boolean> {
  const ptr = await svc.ddb.send(new GetCommand({ TableName: table(svc), Key: connPointerKey(connectionId), ConsistentRead: true }));
  if (!ptr.Item) return false;
  return removeConnection(svc, { connectionId, market: String(ptr.Item.market), hub: Number(ptr.Item.hub), userId: String(ptr.Item.userId) });
}

/** Changes fields of a stored socket; false when it is gone. */
export async function updateConnection(svc: Services, c: LiveConnection, fields: Partial<Pick<LiveConnection, 'claims' | 'scopes' | 'roles' | 'features' | 'historyDays' | 'validUntil' | 'ready' | 'deviceId'>>): Promise<boolean> {
  const entries: Array<[string, unknown]> = Object.entries(fields).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return true;
  if (fields.features || fields.historyDays !== undefined) entries.push(['aud', audienceKey(fields.features ?? c.features, fields.historyDays ?? c.historyDays)]);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
  }
  try {
    await svc.ddb.send(
      new UpdateCommand({
        TableName: table(svc),
        Key: connKey(c),
        UpdateExpression: `SET ${entries.map(([k]) => `#${k} = :${k}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

function queryAll(svc: Services, pk: string, skPrefix?: string): Promise<Record<string, unknown>[]> {
  return queryItems(svc.ddb, {
    TableName: table(svc),
    KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :p)' : 'pk = :pk',
    ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':p': skPrefix } : { ':pk': pk },
  });
}

/** The market's hubs that exist. */
export async function marketHubs(svc: Services, market: string): Promise<number[]> {
  return (await queryAll(svc, liveHubsPk(market))).map((i) => Number(i.hub)).filter(Number.isInteger);
}

/** One hub's sockets. */
export async function hubConnections(svc: Services, market: string, hub: number): Promise<LiveConnection[]> {
  return (await queryAll(svc, liveConnPk(market, hub))).map(toConnection);
}

/** One hub's sockets as the fan-out needs them (a projected read: a full hub is 2000 items). */
export async function hubAudiences(svc: Services, market: string, hub: number): Promise<SocketAudience[]> {
  const out: SocketAudience[] = [];
  const items = await queryItems(svc.ddb, {
    TableName: table(svc),
    KeyConditionExpression: 'pk = :pk',
    ProjectionExpression: 'sk, aud, ready, userId',
    ExpressionAttributeValues: { ':pk': liveConnPk(market, hub) },
  });
  for (const i of items) {
    const audience = typeof i.aud === 'string' ? i.aud : '|7';
    const bar = audience.lastIndexOf('|');
    const features = audience.slice(0, bar).split(',').filter(Boolean) as Feature[];
    out.push({ connectionId: String(i.sk), market, hub, userId: String(i.userId), ready: i.ready === true, features, historyDays: Number(audience.slice(bar + 1)), audience });
  }
  return out;
}

/** Every socket of a market as the fan-out needs them, hub by hub. */
export async function marketAudiences(svc: Services, market: string): Promise<SocketAudience[]> {
  const hubs = await marketHubs(svc, market);
  return (await Promise.all(hubs.map((h) => hubAudiences(svc, market, h)))).flat();
}

/** Every socket of a market, hub by hub. */
export async function marketConnections(svc: Services, market: string): Promise<LiveConnection[]> {
  const hubs = await marketHubs(svc, market);
  return (await Promise.all(hubs.map((h) => hubConnections(svc, market, h)))).flat();
}

/** Every socket of an account (optionally of one market). */
export async function userConnections(svc: Services, userId: string, market?: string): Promise<LiveConnection[]> {
  const refs = (await queryAll(svc, userPk(userId), LIVE_USER_SK_PREFIX))
    .filter((i) => market === undefined || i.market === market)
    .map((i) => connKey({ market: String(i.market), hub: Number(i.hub), connectionId: String(i.sk).slice(LIVE_USER_SK_PREFIX.length) }));
  const out: LiveConnection[] = [];
  for (let i = 0; i < refs.length; i += 100) {
    let request: Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead: boolean }> | undefined = {
      [table(svc)]: { Keys: refs.slice(i, i + 100), ConsistentRead: true },
    };
    while (request && Object.keys(request).length > 0) {
      const got = await svc.ddb.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of got.Responses?.[table(svc)] ?? []) out.push(toConnection(item));
      request = got.UnprocessedKeys as typeof request;
    }
  }
  return out;
}
