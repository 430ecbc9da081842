/**
 * Expiry of catalogue reports (issue 23: reports of deleted accounts expire). An account that has not uploaded
 * to the catalogue for the lifetime has every report withdrawn from its keys' entries (its votes stop
 * counting) and deleted, then its account item. A deleted account never uploads again, so its reports go; the
 * identity provider is never asked (no call per account, and no provider outage delays it).
 */
import { DeleteCommand, type QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type StoredReport, withdrawReport } from '../domain/item-catalogue';
import { batchGet, entryPut, inPool, markNameChanged, pause, readEntries } from './catalogue';
import { isConditionFailure, num, str } from './identity-items';
import { CATALOGUE_ACCOUNT_SHARDS, CATALOGUE_REPORT_SHARDS, catalogueAccountKey, catalogueAccountsPk, catalogueReportKey, catalogueReportPk } from './keys';
import { queryPages } from './query';
import type { Table } from './table';

type Raw = Record<string, unknown>;
/** Reports withdrawn per transaction: each is its entry's put and the report's delete (100 items at most). */
const TRANSACTION_KEYS = 50;
const MAX_ATTEMPTS = 8;

async function queryAll(
  t: Table,
  input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName' | 'ExclusiveStartKey'>,
  limit = Infinity,
): Promise<Raw[]> {
  const out: Raw[] = [];
  for await (const res of queryPages(t.ddb, { ...input, TableName: t.name })) {
    out.push(...((res.Items ?? []) as Raw[]));
    if (out.length >= limit) break;
  }
  return out;
}

/** Accounts whose last upload is older than `before`, at most `max`. */
async function staleAccounts(t: Table, before: number, max: number): Promise<string[]> {
  const out: string[] = [];
  for (let s = 0; s < CATALOGUE_ACCOUNT_SHARDS && out.length < max; s++) {
    const items = await queryAll(
      t,
      {
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#last < :before',
        ProjectionExpression: 'sk',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':pk': catalogueAccountsPk(s), ':before': before },
      },
      max - out.length,
    );
    for (const i of items) if (out.length < max) out.push(String(i.sk));
  }
  return out;
}

interface HeldReport extends StoredReport {
  key: number;
}

const toReport = (i: Raw): HeldReport => ({
  key: Number(i.sk),
  n: str(i.n) ?? '',
  q: num(i.q) ?? 0,
  fi: num(i.fi) ?? 0,
  fl: num(i.fl) ?? 0,
  at: num(i.at) ?? 0,
});

/**
 * Withdraws one chunk of an account's reports older than `before`: each key's entry loses the report and the
 * report is deleted, in one transaction (the entry's version and the report's time as read). After a lost
 * race (another upload changed an entry, or the account reported again) both are read again and retried.
 */
async function withdrawChunk(t: Table, account: string, chunk: HeldReport[], before: number): Promise<boolean> {
  let held = chunk;
  for (let attempt = 0; held.length > 0; attempt++) {
    const entries = await readEntries(
      t,
      held.map((r) => r.key),
    );
    const items: Raw[] = [];
    let nameChanged = false;
    for (const r of held) {
      const current = entries.get(r.key);
      if (current) {
        const out = withdrawReport(current.entry, r);
        nameChanged ||= out.nameChanged;
        items.push(entryPut(t, out.entry, current.version));
      }
      items.push({
        Delete: {
          TableName: t.name,
          Key: catalogueReportKey(r.key, account),
          ConditionExpression: '#at = :at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':at': r.at },
        },
      });
    }
    try {
      await t.ddb.send(new TransactWriteCommand({ TransactItems: items as never }));
      return nameChanged;
    } catch (err) {
      if (!isConditionFailure(err) || attempt + 1 >= MAX_ATTEMPTS) throw err;
      await pause(attempt);
      const fresh = await batchGet(
        t,
        held.map((r) => catalogueReportKey(r.key, account)),
      );
      held = fresh.map(toReport).filter((r) => r.at < before);
    }
  }
  return false;
}

/** Withdraws every report of `account` and deletes its account item unless it uploaded meanwhile; answers reports withdrawn and whether a name changed. */
async function expireAccount(t: Table, account: string, before: number): Promise<{ reports: number; nameChanged: boolean }> {
  let reports = 0;
  let nameChanged = false;
  for (let s = 0; s < CATALOGUE_REPORT_SHARDS; s++) {
    const held = (
      await queryAll(t, {
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#at < :before',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':pk': catalogueReportPk(account, s), ':before': before },
      })
    ).map(toReport);
    const chunks: HeldReport[][] = [];
    for (let i = 0; i < held.length; i += TRANSACTION_KEYS) chunks.push(held.slice(i, i + TRANSACTION_KEYS));
    await inPool(chunks, 4, async (chunk) => {
      if (await withdrawChunk(t, account, chunk, before)) nameChanged = true;
    });
    reports += held.length;
  }
  await t.ddb
    .send(
      new DeleteCommand({
        TableName: t.name,
        Key: catalogueAccountKey(account),
        ConditionExpression: '#last < :before',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':before': before },
      }),
    )
    .catch((err) => {
      if (!isConditionFailure(err)) throw err;
    });
  return { reports, nameChanged };
}

/** See the port: accounts whose last upload is older than `before` lose every report, at most `maxAccounts` per call. */
export async function expireCatalogueAccounts(t: Table, before: number, now: number, maxAccounts: number): Promise<{ accounts: number; reports: number }> {
  const accounts = await staleAccounts(t, before, maxAccounts);
  let reports = 0;
  let nameChanged = false;
  for (const a of accounts) {
    const out = await expireAccount(t, a, before);
    reports += out.reports;
    nameChanged ||= out.nameChanged;
  }
  if (nameChanged) await markNameChanged(t, now);
  return { accounts: accounts.length, reports };
}
