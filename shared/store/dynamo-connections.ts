/**
 * Live sockets in DynamoDB (shared/ports/connections.ts). Per socket: its record in its hub's partition (what the
 * fan-out reads; the record's INSERT drives `hello`), a pointer by connection id (`$default` and `$disconnect`
 * know only the id) and an entry under its account (role changes, alerts and device deletion find the account's
 * sockets). A hub's counter admits a socket with a conditional increment, so a hub never holds more than 2000.
 */
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Feature } from '../domain/roles';
import {
  audienceKey,
  type ConnectionFields,
  type ConnectionsPort,
  HUB_SIZE,
  type LiveConnection,
  type MessageCount,
  type NewConnection,
  type SocketAudience,
  type SocketRef,
} from '../ports/connections';
import { atPort } from './dependency-failure';
import { isConditionFailure } from './identity-items';
import { connPointerKey, LIVE_USER_SK_PREFIX, liveConnPk, liveHubSk, liveHubsPk, liveUserSk, userPk } from './keys';
import { queryAll as queryItems, queryPages } from './query';
import type { Table } from './table';
import { applied, updateItem } from './writes';

const connKey = (c: Pick<LiveConnection, 'market' | 'hub' | 'connectionId'>) => ({ pk: liveConnPk(c.market, c.hub), sk: c.connectionId });
const userKey = (c: Pick<LiveConnection, 'userId' | 'connectionId'>) => ({ pk: userPk(c.userId), sk: liveUserSk(c.connectionId) });

/** A socket from its stored item (or a stream image of it). */
export function toConnection(item: Record<string, unknown>): LiveConnection {
  const { pk: _pk, sk: _sk, aud: _aud, ...rest } = item;
  const c = rest as unknown as LiveConnection;
  return { ...c, claims: c.claims ?? {}, scopes: c.scopes ?? null, ready: c.ready === true, validUntil: c.validUntil ?? null };
}

/**
 * A hub's partition read as four Queries at once, by connection id (the sort key): API Gateway's ids, and the
 * local gateway's, are base64, so the first character spreads them about evenly over `+/0-9A-Za-z`. Together
 * the ranges cover every string; neighbours share only their bound itself (BETWEEN is inclusive).
 */
const HUB_RANGES: ReadonlyArray<{ condition: string; values: Record<string, string> }> = [
  { condition: 'sk < :hi', values: { ':hi': 'E' } },
  { condition: 'sk BETWEEN :lo AND :hi', values: { ':lo': 'E', ':hi': 'U' } },
  { condition: 'sk BETWEEN :lo AND :hi', values: { ':lo': 'U', ':hi': 'k' } },
  { condition: 'sk >= :lo', values: { ':lo': 'k' } },
];

export class DynamoConnections implements ConnectionsPort {
  /** The first hub seen with room, per market: a warm function starts looking there. */
  private readonly firstOpenHub = new Map<string, number>();

  constructor(
    private readonly t: Table,
    /** Sockets per hub (tests use small hubs). */
    private readonly hubSize = HUB_SIZE,
  ) {
    // biome-ignore lint/correctness/noConstructorReturn: the port its callers get is this adapter behind atPort
    return atPort('table', this);
  }

  /** Takes a place in the market's first hub with room; answers the hub. */
  private async takeHubPlace(market: string): Promise<number> {
    for (let hub = this.firstOpenHub.get(market) ?? 0; ; hub++) {
      try {
        await this.t.ddb.send(
          new UpdateCommand({
            TableName: this.t.name,
            Key: { pk: liveHubsPk(market), sk: liveHubSk(hub) },
            UpdateExpression: 'SET hub = :hub ADD n :one',
            ConditionExpression: 'attribute_not_exists(n) OR n < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': this.hubSize, ':hub': hub },
          }),
        );
        this.firstOpenHub.set(market, hub);
        return hub;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
  }

  private async releaseHubPlace(market: string, hub: number): Promise<void> {
    await this.t.ddb.send(
      new UpdateCommand({
        TableName: this.t.name,
        Key: { pk: liveHubsPk(market), sk: liveHubSk(hub) },
        UpdateExpression: 'ADD n :minus',
        ExpressionAttributeValues: { ':minus': -1 },
      }),
    );
    const known = this.firstOpenHub.get(market);
    if (known === undefined || hub < known) this.firstOpenHub.set(market, hub);
  }

  async add(c: NewConnection): Promise<LiveConnection> {
    const hub = await this.takeHubPlace(c.market);
    const conn: LiveConnection = { ...c, hub, ready: false };
    const where = { market: c.market, hub };
    await this.t.ddb.send(
      new BatchWriteCommand({
        RequestItems: {
          [this.t.name]: [
            { PutRequest: { Item: { ...connKey(conn), ...conn, aud: audienceKey(c.features, c.historyDays) } } },
            { PutRequest: { Item: { ...connPointerKey(c.connectionId), ...where, userId: c.userId } } },
            { PutRequest: { Item: { ...userKey(conn), ...where } } },
          ],
        },
      }),
    );
    return conn;
  }

  async get(connectionId: string): Promise<LiveConnection | null> {
    const ptr = await this.t.ddb.send(new GetCommand({ TableName: this.t.name, Key: connPointerKey(connectionId), ConsistentRead: true }));
    if (!ptr.Item) return null;
    return this.at({ connectionId, market: String(ptr.Item.market), hub: Number(ptr.Item.hub) });
  }

  async at(ref: Pick<LiveConnection, 'connectionId' | 'market' | 'hub'>): Promise<LiveConnection | null> {
    const out = await this.t.ddb.send(new GetCommand({ TableName: this.t.name, Key: connKey(ref), ConsistentRead: true }));
    return out.Item ? toConnection(out.Item) : null;
  }

  /** Counts on the socket's pointer item in place of reading it (no extra request): `mw` the minute counted, `mn` its count. */
  async countMessage(connectionId: string, minute: number): Promise<MessageCount | null> {
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
        const out = await this.t.ddb.send(new UpdateCommand({ TableName: this.t.name, Key: connPointerKey(connectionId), ReturnValues: 'ALL_NEW', ...update }));
        const item = out.Attributes ?? {};
        return { at: { connectionId, market: String(item.market), hub: Number(item.hub), userId: String(item.userId) }, count: Number(item.mn ?? 1) };
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    return null;
  }

  async remove(c: SocketRef): Promise<boolean> {
    return this.removeRecords(c, true);
  }

  /**
   * Deletes the socket's record and account entry (and its pointer, unless gone already), at once, and gives
   * its hub place back when the record was still there: of two removers, only the one that deleted the record
   * releases the place.
   */
  private async removeRecords(c: SocketRef, withPointer: boolean): Promise<boolean> {
    const [out] = await Promise.all([
      this.t.ddb.send(new DeleteCommand({ TableName: this.t.name, Key: connKey(c), ReturnValues: 'ALL_OLD' })),
      this.t.ddb.send(new DeleteCommand({ TableName: this.t.name, Key: userKey(c) })),
      withPointer ? this.t.ddb.send(new DeleteCommand({ TableName: this.t.name, Key: connPointerKey(c.connectionId) })) : undefined,
    ]);
    if (!out.Attributes) return false;
    await this.releaseHubPlace(c.market, c.hub);
    return true;
  }

  /**
   * `$disconnect` knows only the id: deleting the pointer answers where the socket lives (`ALL_OLD`) in place of
   * reading it first, which saves the read (1 RCU) and a round trip; the deletes cost what they did.
   */
  async removeById(connectionId: string): Promise<boolean> {
    const ptr = await this.t.ddb.send(new DeleteCommand({ TableName: this.t.name, Key: connPointerKey(connectionId), ReturnValues: 'ALL_OLD' }));
    const p = ptr.Attributes;
    if (!p) return false;
    return this.removeRecords({ connectionId, market: String(p.market), hub: Number(p.hub), userId: String(p.userId) }, false);
  }

  async update(c: LiveConnection, fields: ConnectionFields): Promise<boolean> {
    const entries: Array<[string, unknown]> = Object.entries(fields).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return true;
    if (fields.features || fields.historyDays !== undefined)
      entries.push(['aud', audienceKey(fields.features ?? c.features, fields.historyDays ?? c.historyDays)]);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      names[`#${k}`] = k;
      values[`:${k}`] = v;
    }
    return applied(
      updateItem(this.t, {
        Key: connKey(c),
        UpdateExpression: `SET ${entries.map(([k]) => `#${k} = :${k}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  private query(pk: string, skPrefix?: string): Promise<Record<string, unknown>[]> {
    return queryItems(this.t.ddb, {
      TableName: this.t.name,
      KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :p)' : 'pk = :pk',
      ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':p': skPrefix } : { ':pk': pk },
    });
  }

  /** The market's hubs that exist. */
  private async hubs(market: string): Promise<number[]> {
    return (await this.query(liveHubsPk(market))).map((i) => Number(i.hub)).filter(Number.isInteger);
  }

  /** One hub's sockets as the fan-out needs them (a projected read: a full hub is 2000 items), its id ranges read at once. */
  private async hubAudiences(market: string, hub: number): Promise<SocketAudience[]> {
    const out: SocketAudience[] = [];
    const ranges = await Promise.all(
      HUB_RANGES.map((range) =>
        queryItems(this.t.ddb, {
          TableName: this.t.name,
          KeyConditionExpression: `pk = :pk AND ${range.condition}`,
          ProjectionExpression: 'sk, aud, ready, userId',
          ExpressionAttributeValues: { ':pk': liveConnPk(market, hub), ...range.values },
        }),
      ),
    );
    // A connection id equal to a bound falls in the two ranges that share it: each socket once.
    const seen = new Set<string>();
    for (const i of ranges.flat()) {
      if (seen.has(String(i.sk))) continue;
      seen.add(String(i.sk));
      const audience = typeof i.aud === 'string' ? i.aud : '|7';
      const bar = audience.lastIndexOf('|');
      const features = audience.slice(0, bar).split(',').filter(Boolean) as Feature[];
      out.push({
        connectionId: String(i.sk),
        market,
        hub,
        userId: String(i.userId),
        ready: i.ready === true,
        features,
        historyDays: Number(audience.slice(bar + 1)),
        audience,
      });
    }
    return out;
  }

  /**
   * Read in one round trip's time where it can (issue 27 point 4, the fan-out's time): hub 0, where a market's
   * first 2000 sockets live, is read alongside the list of hubs rather than after it, and each hub's query is
   * split over ranges of connection ids (HUB_RANGES) run at once.
   */
  async audiencesOf(market: string): Promise<SocketAudience[]> {
    const [hubs, first] = await Promise.all([this.hubs(market), this.hubAudiences(market, 0)]);
    const rest = await Promise.all(hubs.filter((h) => h !== 0).map((h) => this.hubAudiences(market, h)));
    return [first, ...rest].flat();
  }

  async ofMarket(market: string): Promise<LiveConnection[]> {
    const hubs = await this.hubs(market);
    return (await Promise.all(hubs.map(async (h) => (await this.query(liveConnPk(market, h))).map(toConnection)))).flat();
  }

  async ofUser(userId: string, market?: string): Promise<LiveConnection[]> {
    const refs = (await this.query(userPk(userId), LIVE_USER_SK_PREFIX))
      .filter((i) => market === undefined || i.market === market)
      .map((i) => connKey({ market: String(i.market), hub: Number(i.hub), connectionId: String(i.sk).slice(LIVE_USER_SK_PREFIX.length) }));
    const out: LiveConnection[] = [];
    for (let i = 0; i < refs.length; i += 100) {
      let request: Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead: boolean }> | undefined = {
        [this.t.name]: { Keys: refs.slice(i, i + 100), ConsistentRead: true },
      };
      while (request && Object.keys(request).length > 0) {
        const got = await this.t.ddb.send(new BatchGetCommand({ RequestItems: request }));
        for (const item of got.Responses?.[this.t.name] ?? []) out.push(toConnection(item));
        request = got.UnprocessedKeys as typeof request;
      }
    }
    return out;
  }

  /**
   * A `COUNT` query of the account's socket entries (strongly consistent: a socket stored a moment ago counts).
   * The entries are a few dozen bytes, so a full account's count reads one 4 KB unit and writes nothing.
   */
  async countOfUser(userId: string): Promise<number> {
    let count = 0;
    for await (const out of queryPages(this.t.ddb, {
      TableName: this.t.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': userPk(userId), ':p': LIVE_USER_SK_PREFIX },
      Select: 'COUNT',
      ConsistentRead: true,
    })) {
      count += out.Count ?? 0;
    }
    return count;
  }
}
