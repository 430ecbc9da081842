/**
 * DynamoDB adapter of market alerts. An alert lives in its market's partition (`ALERTS#<market>`, sk
 * `<userId>#<id>`) so a merge reads its market's alerts with one query; an account's alerts are six queries.
 * A counter item beside the account's other items enforces `limit(alerts)` with a conditional write.
 */
import { BatchGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AlertHit, MarketAlert } from '../domain/alerts';
import { MARKETS } from '../domain/market';
import type { AlertFiredRecord, StoredAlert } from '../ports/settings';
import { isConditionFailure, num, str } from './identity-items';
import { ALERT_COUNT_SK, alertFiredPk, alertFiredSk, alertSk, alertsPk, userPk } from './keys';
import { queryAll as queryItems } from './query';
import type { Table } from './table';
import { applied, transact } from './writes';

const FIRED_TTL_MS = 86_400_000;
const alertKey = (userId: string, a: Pick<MarketAlert, 'market' | 'id'>) => ({ pk: alertsPk(a.market), sk: alertSk(userId, a.id) });
const countKey = (userId: string) => ({ pk: userPk(userId), sk: ALERT_COUNT_SK });
/** Attribute names the state writes touch (aliased: several are DynamoDB reserved words). */
const NAMES = { '#armed': 'armed', '#rev': 'rev', '#deal': 'deal' };

// A whole-market deal can remember thousands of keys: ascending deltas in base 36 keep the item small.
export function encodeKeys(keys: readonly number[]): string {
  const out: string[] = [];
  let prev = 0;
  for (const k of keys) {
    out.push((k - prev).toString(36));
    prev = k;
  }
  return out.join('.');
}

export function decodeKeys(text: unknown): number[] {
  if (typeof text !== 'string' || text === '') return [];
  let prev = 0;
  return text.split('.').map((d) => (prev += Number.parseInt(d, 36)));
}

function toStored(item: Record<string, unknown>): StoredAlert {
  const alert: MarketAlert = {
    id: str(item.id) ?? '',
    market: str(item.market) ?? '',
    item: num(item.item) ?? 0,
    kind: item.kind as MarketAlert['kind'],
    value: num(item.value) ?? 0,
    enabled: item.enabled !== false,
    created: num(item.created) ?? 0,
    armed: item.armed !== false,
    last: item.last && typeof item.last === 'object' ? (item.last as { at: number; hits: AlertHit[] }) : null,
  };
  if (typeof item.name === 'string') alert.name = item.name;
  if (typeof item.note === 'string') alert.note = item.note;
  return { userId: str(item.userId) ?? '', alert, remembered: decodeKeys(item.deal), rev: num(item.rev) ?? 0 };
}

function toItem(userId: string, a: MarketAlert, rev: number): Record<string, unknown> {
  return { ...alertKey(userId, a), userId, ...a, rev };
}

/** The account's alerts in every market, newest first. */
export async function listAccountAlerts(t: Table, userId: string): Promise<StoredAlert[]> {
  const pages = await Promise.all(MARKETS.map((m) => queryAll(t, alertsPk(m), `${userId}#`)));
  return pages
    .flat()
    .map(toStored)
    .sort((a, b) => b.alert.created - a.alert.created || (a.alert.id < b.alert.id ? 1 : -1));
}

/** One of the account's alerts by id, or null. */
export async function getAccountAlert(t: Table, userId: string, id: string): Promise<StoredAlert | null> {
  const keys = MARKETS.map((m) => ({ pk: alertsPk(m), sk: alertSk(userId, id) }));
  const out = await t.ddb.send(new BatchGetCommand({ RequestItems: { [t.name]: { Keys: keys, ConsistentRead: true } } }));
  const item = out.Responses?.[t.name]?.[0];
  return item ? toStored(item) : null;
}

/** Stores a new alert unless the account already holds `limit` of them; false when the limit stops it. */
export async function createAlert(t: Table, userId: string, alert: MarketAlert, limit: number): Promise<boolean> {
  if (limit <= 0) return false;
  return applied(
    transact(t, [
      {
        Update: {
          Key: countKey(userId),
          UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
        },
      },
      { Put: { Item: toItem(userId, alert, 1), ConditionExpression: 'attribute_not_exists(pk)' } },
    ]),
  );
}

/**
 * Replaces an alert's input: armed again, the deal set forgotten, `last` kept as stored (an evaluation may have
 * set it since it was read). Moving to another market moves the item. Answers the stored alert, or null when gone.
 */
export async function replaceStoredAlert(t: Table, old: StoredAlert, next: MarketAlert): Promise<MarketAlert | null> {
  const { userId } = old;
  try {
    if (next.market !== old.alert.market) {
      await transact(t, [
        {
          Delete: {
            Key: alertKey(userId, old.alert),
            ConditionExpression: '#rev = :rev',
            ExpressionAttributeNames: { '#rev': 'rev' },
            ExpressionAttributeValues: { ':rev': old.rev },
          },
        },
        { Put: { Item: toItem(userId, next, old.rev + 1) } },
      ]);
      return next;
    }
    const sets = ['#kind = :kind', '#item = :item', '#value = :value', '#enabled = :enabled', '#armed = :armed', '#rev = #rev + :one'];
    const removes = ['#deal'];
    const values: Record<string, unknown> = {
      ':kind': next.kind,
      ':item': next.item,
      ':value': next.value,
      ':enabled': next.enabled,
      ':armed': true,
      ':one': 1,
    };
    for (const f of ['name', 'note'] as const) {
      if (next[f] === undefined) removes.push(`#${f}`);
      else {
        sets.push(`#${f} = :${f}`);
        values[`:${f}`] = next[f];
      }
    }
    const out = await t.ddb.send(
      new UpdateCommand({
        TableName: t.name,
        Key: alertKey(userId, next),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { ...NAMES, '#item': 'item', '#value': 'value', '#name': 'name', '#note': 'note', '#kind': 'kind', '#enabled': 'enabled' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? toStored(out.Attributes).alert : null;
  } catch (err) {
    if (isConditionFailure(err)) return null;
    throw err;
  }
}

/** Deletes one of the account's alerts; false when it did not exist. */
export async function deleteStoredAlert(t: Table, old: StoredAlert): Promise<boolean> {
  return applied(
    transact(t, [
      { Delete: { Key: alertKey(old.userId, old.alert), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          Key: countKey(old.userId),
          UpdateExpression: 'SET #n = if_not_exists(#n, :one) - :one',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ]),
  );
}

/** Every enabled alert of a market (what one merge evaluates). */
export async function enabledMarketAlerts(t: Table, market: string): Promise<StoredAlert[]> {
  return (await queryAll(t, alertsPk(market))).map(toStored).filter((s) => s.alert.enabled);
}

/**
 * Persists an evaluation unless the account edited the alert meanwhile (`rev` moved); a firing also writes the
 * live fan-out's record in the same transaction. False when the edit won (nothing written, nothing to announce).
 */
export async function saveEvaluation(t: Table, s: StoredAlert, next: MarketAlert, remembered: number[], fired: AlertFiredRecord | null): Promise<boolean> {
  const deal = remembered.length > 0 ? encodeKeys(remembered) : null;
  const update = {
    TableName: t.name,
    Key: alertKey(s.userId, s.alert),
    UpdateExpression: deal ? 'SET #armed = :armed, #last = :last, #deal = :deal' : 'SET #armed = :armed, #last = :last REMOVE #deal',
    ConditionExpression: '#rev = :rev',
    ExpressionAttributeNames: { ...NAMES, '#last': 'last' },
    ExpressionAttributeValues: { ':armed': next.armed, ':last': next.last, ':rev': s.rev, ...(deal ? { ':deal': deal } : {}) },
  };
  try {
    if (!fired) {
      await t.ddb.send(new UpdateCommand(update));
      return true;
    }
    const record = {
      pk: alertFiredPk(fired.market),
      sk: alertFiredSk(fired.at, fired.userId, fired.alert.id),
      kind: 'alert',
      ...fired,
      ttl: Math.ceil((fired.at + FIRED_TTL_MS) / 1000),
    };
    await t.ddb.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, { Put: { TableName: t.name, Item: record } }] }));
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The firings recorded for `market` at server time `at` (fired records live a day). */
export async function firedAt(t: Table, market: string, at: number): Promise<AlertFiredRecord[]> {
  const prefix = alertFiredSk(at, '', '').slice(0, -1);
  return (await queryAll(t, alertFiredPk(market), prefix)).map((item) => ({
    userId: String(item.userId),
    market: String(item.market),
    at: Number(item.at),
    alert: item.alert as MarketAlert,
    ...(typeof item.seq === 'number' ? { seq: item.seq } : {}),
  }));
}

function queryAll(t: Table, pk: string, skPrefix?: string): Promise<Record<string, unknown>[]> {
  return queryItems(t.ddb, {
    TableName: t.name,
    KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :p)' : 'pk = :pk',
    ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':p': skPrefix } : { ':pk': pk },
    ConsistentRead: true,
  });
}
