import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  applyReport,
  type CatalogueEntry,
  type CatalogueReport,
  leaderOf,
  leadingTally,
  type NameTally,
  type StoredReport,
  sameReport,
} from '../domain/item-catalogue';
import type { CatalogueLeader } from '../domain/items';
import type { NameRevision, RecordOutcome } from '../ports/catalogue';
import { noteCatalogueUpload } from './catalogue-quota';
import { isConditionFailure, num, str } from './identity-items';
import { CATALOGUE_META_KEY, CATALOGUE_SHARDS, catalogueEntryKey, catalogueReportKey, catalogueShardPk } from './keys';
import { queryPages } from './query';
import type { Table } from './table';

/** Unchanged reports refresh an entry's `lastSeen` at most this often (it saves a write per key per upload). */
const LAST_SEEN_REFRESH_MS = 3_600_000;
/** Parallel writes of one upload: enough to finish 5000 keys well inside the function's timeout. */
const WRITE_CONCURRENCY = 16;
/** Keys per transaction: each key is two items (entry and report) of the 100 a transaction may hold. */
const TRANSACTION_KEYS = 50;
const TRANSACTION_CONCURRENCY = 4;
const MAX_ATTEMPTS = 8;

export interface VersionedEntry {
  entry: CatalogueEntry;
  version: number;
}

type Raw = Record<string, unknown>;

const toTally = (t: Raw): NameTally => ({
  n: str(t.n) ?? '',
  accounts: num(t.a) ?? 0,
  first: num(t.f) ?? 0,
  q: num(t.q) ?? 0,
  fi: num(t.fi) ?? 0,
  fl: num(t.fl) ?? 0,
  at: num(t.t) ?? 0,
});

function toEntry(item: Raw): VersionedEntry {
  const names = Array.isArray(item.names) ? (item.names as Raw[]).map(toTally) : [];
  return {
    entry: { key: num(item.key) ?? 0, names, accounts: num(item.accounts) ?? 0, firstSeen: num(item.firstSeen) ?? 0, lastSeen: num(item.lastSeen) ?? 0 },
    version: num(item.version) ?? 0,
  };
}

function fromEntry(e: CatalogueEntry, version: number): Raw {
  const lead = leadingTally(e.names);
  return {
    ...catalogueEntryKey(e.key),
    key: e.key,
    names: e.names.map((t) => ({ n: t.n, a: t.accounts, f: t.first, q: t.q, fi: t.fi, fl: t.fl, t: t.at })),
    accounts: e.accounts,
    firstSeen: e.firstSeen,
    lastSeen: e.lastSeen,
    // The entry's own name, quality, icon file id and flags (spec: catalogue entry kept per key) are its leader's.
    name: lead?.n,
    quality: lead?.q,
    icon: lead?.fi,
    flags: lead?.fl,
    version,
  };
}

/** BatchGets of one upload in flight at once (a 5000-key upload reads 100 batches of entries and 100 of reports). */
const READ_CONCURRENCY = 8;

export async function batchGet(t: Table, keys: Raw[]): Promise<Raw[]> {
  const out: Raw[] = [];
  const table = t.name;
  const starts = Array.from({ length: Math.ceil(keys.length / 100) }, (_, i) => i * 100);
  await inPool(starts, READ_CONCURRENCY, async (i) => {
    let request: Record<string, { Keys: Raw[] }> | undefined = { [table]: { Keys: keys.slice(i, i + 100) } };
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      const res = await t.ddb.send(new BatchGetCommand({ RequestItems: request }));
      out.push(...((res.Responses?.[table] ?? []) as Raw[]));
      request = res.UnprocessedKeys as typeof request;
      if (request && Object.keys(request).length > 0) await pause(attempt);
    }
  });
  return out;
}

/** Backoff with jitter, so uploads that collided do not collide again in step. */
export const pause = (attempt: number): Promise<void> => new Promise((r) => setTimeout(r, Math.min(500, 10 * 2 ** attempt) * (0.5 + Math.random())));

export async function readEntries(t: Table, keys: number[]): Promise<Map<number, VersionedEntry>> {
  const items = await batchGet(t, keys.map(catalogueEntryKey));
  return new Map(items.map((i) => [num(i.key) ?? 0, toEntry(i)]));
}

async function readReports(t: Table, keys: number[], account: string): Promise<Map<number, StoredReport>> {
  const items = await batchGet(
    t,
    keys.map((k) => catalogueReportKey(k, account)),
  );
  return new Map(items.map((i) => [Number(i.sk), { n: str(i.n) ?? '', q: num(i.q) ?? 0, fi: num(i.fi) ?? 0, fl: num(i.fl) ?? 0, at: num(i.at) ?? 0 }]));
}

/** The conditional put of an entry: it must not have changed since `version` was read (absent: not exist). */
export const entryPut = (t: Table, entry: CatalogueEntry, version: number | null) => ({
  Put: {
    TableName: t.name,
    Item: fromEntry(entry, (version ?? 0) + 1),
    ConditionExpression: version === null ? 'attribute_not_exists(pk)' : 'version = :v',
    ExpressionAttributeValues: version === null ? undefined : { ':v': version },
  },
});

/**
 * Spec Catalogue upload rules: keeps the account's latest report of each key and updates each key's entry;
 * `added` counts keys new to the catalogue, `known` the rest. A report identical to the account's previous
 * one changes nothing but the entry's `lastSeen` (at most hourly). Each key's entry and report are written in
 * one transaction, so a retried upload after a crash can never count an account twice.
 */
export async function recordCatalogueReports(
  t: Table,
  account: string,
  reports: ReadonlyMap<number, CatalogueReport>,
  now: number,
  newKeysPerDay?: number,
): Promise<RecordOutcome> {
  const keys = [...reports.keys()];
  const [previous, entries] = await Promise.all([readReports(t, keys, account), readEntries(t, keys)]);
  const fresh = keys.filter((k) => !entries.has(k)).length;
  if (!(await noteCatalogueUpload(t, account, fresh, now, newKeysPerDay))) return { added: 0, known: 0, nameChanged: false, overQuota: true };
  let added = 0;
  let nameChanged = false;
  const changed: number[] = [];
  const stale: number[] = [];
  for (const key of keys) {
    const current = entries.get(key);
    if (!current || !sameReport(previous.get(key) ?? null, reports.get(key)!)) changed.push(key);
    else if (now - current.entry.lastSeen >= LAST_SEEN_REFRESH_MS) stale.push(key);
  }
  const chunks: number[][] = [];
  for (let i = 0; i < changed.length; i += TRANSACTION_KEYS) chunks.push(changed.slice(i, i + TRANSACTION_KEYS));
  const writeChunk = async (chunk: number[]): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const outcomes = chunk.map((key) => applyReport(entries.get(key)?.entry ?? null, key, previous.get(key) ?? null, reports.get(key)!, now));
      const items = chunk.flatMap((key, i) => [
        entryPut(t, outcomes[i].entry, entries.get(key)?.version ?? null),
        { Put: { TableName: t.name, Item: { ...catalogueReportKey(key, account), ...reports.get(key)!, at: now } } },
      ]);
      try {
        await t.ddb.send(new TransactWriteCommand({ TransactItems: items }));
        for (const o of outcomes) {
          if (o.added) added++;
          if (o.nameChanged) nameChanged = true;
        }
        return;
      } catch (err) {
        if (!isConditionFailure(err) || attempt + 1 >= MAX_ATTEMPTS) throw err;
        // Another upload wrote some of these entries (or a transaction held them): read them again and retry.
        const fresh = await readEntries(t, chunk);
        for (const key of chunk) {
          const e = fresh.get(key);
          if (e) entries.set(key, e);
          else entries.delete(key);
        }
        await pause(attempt);
      }
    }
  };
  await Promise.all([inPool(chunks, TRANSACTION_CONCURRENCY, writeChunk), inPool(stale, WRITE_CONCURRENCY, (key) => touchLastSeen(t, key, now))]);
  if (nameChanged) await markNameChanged(t, now);
  return { added, known: keys.length - added, nameChanged };
}

async function touchLastSeen(t: Table, key: number, now: number): Promise<void> {
  await t.ddb
    .send(
      new UpdateCommand({
        TableName: t.name,
        Key: catalogueEntryKey(key),
        UpdateExpression: 'SET lastSeen = :now',
        ConditionExpression: 'attribute_exists(pk) AND lastSeen < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    )
    .catch((err) => {
      if (!isConditionFailure(err)) throw err;
    });
}

export async function inPool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

/** The catalogue entry of a key, or null. */
export async function catalogueEntry(t: Table, key: number): Promise<CatalogueEntry | null> {
  const res = await t.ddb.send(new GetCommand({ TableName: t.name, Key: catalogueEntryKey(key) }));
  return res.Item ? toEntry(res.Item).entry : null;
}

/** Every key's leading name with its newest upload's fields (only those `admit` admits, page by page). */
export async function catalogueLeaders(t: Table, admit?: (leader: CatalogueLeader) => boolean): Promise<CatalogueLeader[]> {
  const shards = Array.from({ length: CATALOGUE_SHARDS }, (_, s) => s);
  const perShard = await Promise.all(
    shards.map(async (s) => {
      const out: CatalogueLeader[] = [];
      for await (const res of queryPages(t.ddb, {
        TableName: t.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': catalogueShardPk(s) },
        ProjectionExpression: '#k, #names',
        ExpressionAttributeNames: { '#k': 'key', '#names': 'names' },
      })) {
        for (const item of res.Items ?? []) {
          const lead = leaderOf(toEntry(item).entry);
          if (lead && (!admit || admit(lead))) out.push(lead);
        }
      }
      return out;
    }),
  );
  return perShard.flat().sort((a, b) => a.key - b.key);
}

/** The catalogue's current name revision (0 and null before the first change). */
export async function nameRevision(t: Table): Promise<NameRevision> {
  const res = await t.ddb.send(new GetCommand({ TableName: t.name, Key: CATALOGUE_META_KEY, ConsistentRead: true }));
  return { revision: num(res.Item?.revision) ?? 0, changedAt: num(res.Item?.changedAt) ?? null };
}

/** Counts a name change; a counter rather than a time alone, so two changes in one millisecond still differ. */
export async function markNameChanged(t: Table, now: number): Promise<void> {
  await t.ddb.send(
    new UpdateCommand({
      TableName: t.name,
      Key: CATALOGUE_META_KEY,
      UpdateExpression: 'ADD revision :one SET changedAt = :now',
      ExpressionAttributeValues: { ':one': 1, ':now': now },
    }),
  );
}
