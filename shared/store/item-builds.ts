/**
 * Published item builds in DynamoDB (spec api.md: Item data, Versioning): one record per build (its merged
 * files' hash and what they include) and the current build, which `items/v1/current.json` mirrors.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BuildRecord, CurrentBuild } from '../ports/catalogue';
import { isConditionFailure, num, str } from './identity-items';
import { ITEMS_CURRENT_SK, ITEMS_PK, itemBuildSk } from './keys';
import type { Table } from './table';

/** A build's record, or null for a build never published. */
export async function getBuild(t: Table, build: string): Promise<BuildRecord | null> {
  const res = await t.ddb.send(new GetCommand({ TableName: t.name, Key: { pk: ITEMS_PK, sk: itemBuildSk(build) }, ConsistentRead: true }));
  const i = res.Item;
  if (!i) return null;
  return {
    build,
    source: str(i.source) ?? '',
    publishedAt: num(i.publishedAt) ?? 0,
    hash: str(i.hash) ?? null,
    mergedAt: num(i.mergedAt) ?? null,
    revision: num(i.revision) ?? -1,
    changedAt: num(i.changedAt) ?? null,
  };
}

/** Records freshly published generated files: any merged files of an earlier publication no longer count. */
export async function putPublishedBuild(t: Table, build: string, source: string, publishedAt: number): Promise<BuildRecord> {
  const record: BuildRecord = { build, source, publishedAt, hash: null, mergedAt: null, revision: -1, changedAt: null };
  await t.ddb.send(new PutCommand({ TableName: t.name, Item: { pk: ITEMS_PK, sk: itemBuildSk(build), ...record } }));
  return record;
}

/**
 * Records a build's merged files unless the generated files were republished meanwhile or a merge including a
 * newer name revision was recorded first; false when the record was left alone.
 */
export async function recordMerged(t: Table, rec: BuildRecord, merged: Pick<BuildRecord, 'hash' | 'mergedAt' | 'revision' | 'changedAt'>): Promise<boolean> {
  try {
    await t.ddb.send(
      new UpdateCommand({
        TableName: t.name,
        Key: { pk: ITEMS_PK, sk: itemBuildSk(rec.build) },
        UpdateExpression: 'SET #h = :h, mergedAt = :m, revision = :r, changedAt = :c',
        ConditionExpression: 'publishedAt = :p AND revision <= :r',
        ExpressionAttributeNames: { '#h': 'hash' },
        ExpressionAttributeValues: { ':h': merged.hash, ':m': merged.mergedAt, ':r': merged.revision, ':c': merged.changedAt, ':p': rec.publishedAt },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The current build, or null before anything was published. */
export async function getCurrent(t: Table): Promise<CurrentBuild | null> {
  const res = await t.ddb.send(new GetCommand({ TableName: t.name, Key: { pk: ITEMS_PK, sk: ITEMS_CURRENT_SK }, ConsistentRead: true }));
  const i = res.Item;
  const build = str(i?.build);
  return build ? { build, hash: str(i?.hash) ?? null, at: num(i?.at) ?? 0 } : null;
}

/** Makes a build current (publishing). */
export async function setCurrent(t: Table, current: CurrentBuild): Promise<void> {
  await t.ddb.send(new PutCommand({ TableName: t.name, Item: { pk: ITEMS_PK, sk: ITEMS_CURRENT_SK, ...current } }));
}

/** Points the current build at new merged files, unless another build became current meanwhile; false then. */
export async function updateCurrentFiles(t: Table, current: CurrentBuild): Promise<boolean> {
  try {
    await t.ddb.send(
      new PutCommand({
        TableName: t.name,
        Item: { pk: ITEMS_PK, sk: ITEMS_CURRENT_SK, ...current },
        ConditionExpression: '#b = :b',
        ExpressionAttributeNames: { '#b': 'build' },
        ExpressionAttributeValues: { ':b': current.build },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}
