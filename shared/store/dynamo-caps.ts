/**
 * Capabilities in DynamoDB (spec capability rule 1 and 3): one item per scope under `CAP#<market>`, made
 * once with a conditional put so two makers agree on one cap. Day-scoped caps live a little longer than the
 * files they protect, then expire. Caps are never logged.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from '../clock';
import { type CapScope, isCap, newCap } from '../domain/caps';
import type { DayCapKind, MarketCaps } from '../ports/market';
import { isConditionFailure, isLive } from './identity-items';
import { capPk, capSk } from './keys';
import { queryPages } from './query';
import type { Table } from './table';

/** How long a cap is kept after its scope's time: beyond the retention of the files it protects. */
function capExpiresAt(scope: CapScope, now: number): number {
  switch (scope.kind) {
    case 'm1':
      return (scope.day + 5) * DAY_MS;
    case 'h1':
      return (scope.day + 17) * DAY_MS;
    case 'd1':
    case 'volume':
      return (scope.day + 4) * DAY_MS;
    case 'book':
      return Math.max(scope.at, now) + 31 * DAY_MS;
    default:
      return now + 4 * DAY_MS;
  }
}

const numberOf = (s: CapScope): number => (s.kind === 'change' || s.kind === 'checkpoint' ? s.seq : s.kind === 'book' ? s.at : s.day);

/** The DynamoDB adapter of the market's caps. */
export class DynamoCapStore implements MarketCaps {
  constructor(private readonly t: Table) {}

  private key(scope: CapScope) {
    return { pk: capPk(scope.market), sk: capSk(scope.kind, numberOf(scope)) };
  }

  async get(scope: CapScope): Promise<string | null> {
    const out = await this.t.ddb.send(new GetCommand({ TableName: this.t.name, Key: this.key(scope), ConsistentRead: true }));
    return isLive(out.Item, this.t.clock.now()) && isCap(out.Item.cap) ? out.Item.cap : null;
  }

  async create(scope: CapScope): Promise<string> {
    // Most calls find the cap made: a read is cheaper than a refused conditional write.
    const existing = await this.get(scope);
    if (existing !== null) return existing;
    const now = this.t.clock.now();
    const cap = newCap((n) => randomBytes(n));
    try {
      await this.t.ddb.send(
        new PutCommand({
          TableName: this.t.name,
          Item: { ...this.key(scope), cap, ttl: Math.ceil(capExpiresAt(scope, now) / 1000) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return cap;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const stored = await this.get(scope);
      if (stored === null) throw new Error('a cap vanished while it was made');
      return stored;
    }
  }

  /** Day caps of `kind` for days `fromDay … toDay` that exist: day → cap. */
  async dayCaps(market: string, kind: DayCapKind, fromDay: number, toDay: number): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const now = this.t.clock.now();
    for await (const page of queryPages(this.t.ddb, {
      TableName: this.t.name,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': capPk(market), ':from': capSk(kind, Math.max(0, fromDay)), ':to': capSk(kind, Math.max(0, toDay)) },
    })) {
      for (const item of page.Items ?? []) {
        if (!isLive(item, now) || !isCap(item.cap)) continue;
        out.set(Number(String(item.sk).slice(kind.length + 1)), item.cap);
      }
    }
    return out;
  }

  /** The day's `m1` and `h1` caps, made now when missing ("caps for a day are made when the day begins", or on first need). */
  async ensureDay(market: string, day: number): Promise<{ m1: string; h1: string }> {
    const [m1, h1] = await Promise.all([this.create({ kind: 'm1', market, day }), this.create({ kind: 'h1', market, day })]);
    return { m1, h1 };
  }
}
