/** DynamoDB adapter of an account's contribution records (its own uploads, kept 30 days). */
import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { CONTRIBUTIONS_BACK_MS, type ContributionRecord } from '../domain/contributor';
import { isLive, num, str, ttlAt } from './identity-items';
import { CONTRIBUTION_SK_PREFIX, contributionSk, userPk } from './keys';
import { queryPages } from './query';
import type { Table } from './table';

/** Above every real sort key of the prefix, so a range reaches the newest record. */
const TOP = `${CONTRIBUTION_SK_PREFIX}~`;

/** Stores a record received at `received`; the same `id` at the same time overwrites rather than doubles. */
export async function putContribution(
  t: Table,
  userId: string,
  rec: ContributionRecord,
  received: number,
  id = randomBytes(6).toString('base64url'),
): Promise<void> {
  const item = { ...rec, received, ttl: ttlAt(received + CONTRIBUTIONS_BACK_MS + 86_400_000) };
  await t.ddb.send(new PutCommand({ TableName: t.name, Item: { pk: userPk(userId), sk: contributionSk(received, id), ...item } }));
}

/** Records received at or after `from`, newest first, at most `max`. */
export async function queryContributions(t: Table, userId: string, from: number, now: number, max: number): Promise<ContributionRecord[]> {
  const out: ContributionRecord[] = [];
  // Each page asks only for what is still missing.
  const input = () => ({
    TableName: t.name,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :top',
    ExpressionAttributeValues: { ':pk': userPk(userId), ':from': contributionSk(from, ''), ':top': TOP },
    ScanIndexForward: false,
    Limit: max - out.length,
  });
  for await (const page of queryPages(t.ddb, input)) {
    for (const item of page.Items ?? []) if (isLive(item, now)) out.push(toRecord(item));
    if (out.length >= max) break;
  }
  return out;
}

/** How many credited records were received at or after `from`. */
export async function countCredited(t: Table, userId: string, from: number, now: number): Promise<number> {
  let count = 0;
  for await (const page of queryPages(t.ddb, {
    TableName: t.name,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :top',
    FilterExpression: 'credited = :t AND (attribute_not_exists(#ttl) OR #ttl > :nowSec)',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':pk': userPk(userId), ':from': contributionSk(from, ''), ':top': TOP, ':t': true, ':nowSec': Math.floor(now / 1000) },
    Select: 'COUNT',
  })) {
    count += page.Count ?? 0;
  }
  return count;
}

function toRecord(item: Record<string, unknown>): ContributionRecord {
  const rec: ContributionRecord = {
    market: str(item.market) ?? '',
    at: num(item.at) ?? 0,
    kind: item.kind === 'scan' ? 'scan' : 'book',
    items: num(item.items) ?? 0,
    complete: item.complete === true,
    credited: item.credited === true,
  };
  const reason = str(item.reason);
  if (reason) rec.reason = reason;
  return rec;
}
